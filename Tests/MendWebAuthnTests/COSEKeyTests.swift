import Crypto
import MendJOSE
import Testing

@Suite("COSE keys and DER signatures in the one signature core")
struct COSEKeyTests {
    @Test("A COSE key of each type reads back as the key it was written from", arguments: JWSAlgorithm.allCases)
    func roundTrip(_ algorithm: JWSAlgorithm) throws {
        let key = try SoftwareSigningKey.generate(algorithm)
        let encoded = CBOR.encode(.map(COSEKey.map(of: key.publicKey)))
        let read = try COSEKey.publicKey(#require(try CBOR.decode(encoded).mapValue))
        #expect(JWK.thumbprint(of: read) == JWK.thumbprint(of: key.publicKey))
        #expect(read.algorithm == algorithm)
    }

    @Test("Refused: no alg, an alg of another key type, another curve, a private part")
    func refusals() throws {
        let key = P256.Signing.PrivateKey()
        let raw = Array(key.publicKey.rawRepresentation)
        let x = CBORValue.bytes(Array(raw.prefix(32)))
        let y = CBORValue.bytes(Array(raw.suffix(32)))
        let cases: [[(key: CBORValue, value: CBORValue)]] = [
            [(.integer(1), .integer(2)), (.integer(-1), .integer(1)), (.integer(-2), x), (.integer(-3), y)],
            [
                (.integer(1), .integer(2)), (.integer(3), .integer(-8)), (.integer(-1), .integer(1)), (.integer(-2), x),
                (.integer(-3), y),
            ],
            [
                (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(2)), (.integer(-2), x),
                (.integer(-3), y),
            ],
            [
                (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)), (.integer(-2), x),
                (.integer(-3), y), (.integer(-4), .bytes(Array(key.rawRepresentation))),
            ],
            [
                (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)), (.integer(-2), x),
                (.integer(-3), .bytes(Array(raw.suffix(31)))),
            ],
        ]
        for entries in cases {
            #expect(throws: JOSEError.self) { try COSEKey.publicKey(#require(CBORMap(entries))) }
        }
    }

    @Test("ES256 signatures in DER: strict DER verifies; BER forms, a padded integer and r or s out of range do not")
    func derSignatures() throws {
        let key = P256.Signing.PrivateKey()
        let message = Array("authenticator data and client data hash".utf8)
        let raw = Array(try key.signature(for: message).rawRepresentation)
        let der = DERSignature.encode(rawScalars: raw)
        #expect(der == Array(try key.signature(for: message).derRepresentation) || DERSignature.rawScalars(der) == raw)
        let publicKey = JWSPublicKey(.p256(key.publicKey))
        #expect(publicKey.isValidCOSESignature(der, for: message))
        #expect(!publicKey.isValidCOSESignature(raw, for: message))  // JWS's form is not WebAuthn's

        // A long-form length (BER), an extra leading zero, trailing bytes: refused before the primitive.
        let longForm = [0x30, 0x81, der[1]] + der.dropFirst(2)
        #expect(DERSignature.rawScalars(Array(longForm)) == nil)
        var padded = der
        padded.insert(0, at: 4)
        padded[3] += 1
        padded[1] += 1
        #expect(DERSignature.rawScalars(padded) == nil)
        #expect(DERSignature.rawScalars(der + [0]) == nil)
        // r = 0, and s = n (the group order): out of range.
        let zero = DERSignature.encode(rawScalars: [UInt8](repeating: 0, count: 32) + raw.suffix(32))
        #expect(!publicKey.isValidCOSESignature(zero, for: message))
        let order: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]
        #expect(!publicKey.isValidCOSESignature(DERSignature.encode(rawScalars: raw.prefix(32) + order), for: message))
    }
}
