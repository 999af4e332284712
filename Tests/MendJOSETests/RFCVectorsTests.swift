import Crypto
import Foundation
import MendCore
import Testing

@testable import MendJOSE

/// MendJOSE against the examples the JOSE RFCs publish, copied from the RFCs' text value for value:
///
/// - RFC 7515 (JWS) Appendix A.2, "Example JWS Using RSASSA-PKCS1-v1_5 SHA-256": the RSA key (A.2.1) and the JWS in
///   the compact serialization; the JWS Payload octets are those of Appendix A.1.1, which A.2 and A.3 reuse.
/// - RFC 7515 Appendix A.3, "Example JWS Using ECDSA P-256 SHA-256": the EC key (A.3.1) and the compact JWS.
/// - RFC 7638 (JWK Thumbprint) §3.1, "Example JWK Thumbprint Computation": the RSA key and its SHA-256 thumbprint.
/// - RFC 8037 (CFRG curves in JOSE) Appendix A: the Ed25519 private key (A.1), its public key (A.2), the thumbprint
///   and its canonical input (A.3), the signing input and the signed JWS (A.4).
/// - RFC 7520 (JOSE Cookbook) §4.1, "RSA v1.5 Signature": the payload of §4 (Figure 7, with its two U+2019 RIGHT
///   SINGLE QUOTATION MARKs), the RSA key of §3.4 (Figure 4) and the compact JWS (Figure 13).
///
/// A long value is kept here in lines that ``rfcLines(_:)`` joins: where the RFC prints it across lines "for display
/// purposes only" (RFC 7515 A.2 and A.3, RFC 7520), in the RFC's own lines, so that it reads against the RFC line by
/// line. The RFCs' keys include their private members, which MendJOSE's JWK reader refuses: each test reads the
/// public part (``publicMembers(of:)``) and checks that the whole key is refused.
@Suite("MendJOSE against the RFCs' own examples")
struct RFCVectorsTests {
    // MARK: RFC 7515, Appendix A.1.1, A.2 and A.3

    /// The JWS Payload of RFC 7515 A.1.1 (A.2 and A.3 sign the same), as the RFC lists its octets: the JSON text
    /// `{"iss":"joe",` CRLF ` "exp":1300819380,` CRLF ` "http://example.com/is_root":true}`.
    private static let rfc7515Payload: [UInt8] = [
        123, 34, 105, 115, 115, 34, 58, 34, 106, 111, 101, 34, 44, 13, 10, 32,
        34, 101, 120, 112, 34, 58, 49, 51, 48, 48, 56, 49, 57, 51, 56, 48,
        44, 13, 10, 32, 34, 104, 116, 116, 112, 58, 47, 47, 101, 120, 97, 109,
        112, 108, 101, 46, 99, 111, 109, 47, 105, 115, 95, 114, 111, 111, 116, 34,
        58, 116, 114, 117, 101, 125,
    ]

    /// RFC 7515 A.2.1: the RSA key, private members included.
    private static let rfc7515RSAKey: [String: JSONValue] = [
        "kty": .string("RSA"),
        "n": .string(
            rfcLines(
                "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddx",
                "HmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMs",
                "D1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSH",
                "SXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdV",
                "MTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8",
                "NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ")),
        "e": .string("AQAB"),
        "d": .string(
            rfcLines(
                "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97I",
                "jlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0",
                "BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn",
                "439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYT",
                "CBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLh",
                "BOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ")),
        "p": .string(
            rfcLines(
                "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdi",
                "YrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPG",
                "BY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc")),
        "q": .string(
            rfcLines(
                "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxa",
                "ewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA",
                "-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc")),
        "dp": .string(
            rfcLines(
                "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3Q",
                "CLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb",
                "34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0")),
        "dq": .string(
            rfcLines(
                "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa",
                "7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-ky",
                "NlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU")),
        "qi": .string(
            rfcLines(
                "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2o",
                "y26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLU",
                "W0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U")),
    ]

    /// RFC 7515 A.2.1: the complete JWS, `{"alg":"RS256"}`, in the compact serialization.
    private static let rfc7515RS256JWS = rfcLines(
        "eyJhbGciOiJSUzI1NiJ9",
        ".",
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFt",
        "cGxlLmNvbS9pc19yb290Ijp0cnVlfQ",
        ".",
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7",
        "AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4",
        "BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K",
        "0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv",
        "hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrB",
        "p0igcN_IoypGlUPQGe77Rw"
    )

    /// RFC 7515 A.3.1: the EC P-256 key, private member included.
    private static let rfc7515ECKey: [String: JSONValue] = [
        "kty": .string("EC"),
        "crv": .string("P-256"),
        "x": .string("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"),
        "y": .string("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"),
        "d": .string("jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"),
    ]

    /// RFC 7515 A.3.1: the complete JWS, `{"alg":"ES256"}`, in the compact serialization.
    private static let rfc7515ES256JWS = rfcLines(
        "eyJhbGciOiJFUzI1NiJ9",
        ".",
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFt",
        "cGxlLmNvbS9pc19yb290Ijp0cnVlfQ",
        ".",
        "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSA",
        "pmWQxfKTUJqPP3-Kg6NU1Q"
    )

    // MARK: RFC 7638, §3.1

    /// RFC 7638 §3.1: the example RSA key (public; with `alg` and `kid`, which the thumbprint leaves out), its `n`
    /// in lines of 64 characters.
    private static let rfc7638Key: [String: JSONValue] = [
        "kty": .string("RSA"),
        "n": .string(
            rfcLines(
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86z",
                "wu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5Js",
                "GY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMic",
                "AtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-",
                "bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csF",
                "Cur-kEgU8awapJzKnqDKgw")),
        "e": .string("AQAB"),
        "alg": .string("RS256"),
        "kid": .string("2011-04-29"),
    ]

    /// RFC 7638 §3.1: the key's SHA-256 JWK Thumbprint, base64url.
    private static let rfc7638Thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"

    // MARK: RFC 8037, Appendix A

    /// RFC 8037 A.1: the Ed25519 private key.
    private static let rfc8037PrivateKey: [String: JSONValue] = [
        "kty": .string("OKP"),
        "crv": .string("Ed25519"),
        "d": .string("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"),
        "x": .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
    ]

    /// RFC 8037 A.2: its public key.
    private static let rfc8037PublicKey: [String: JSONValue] = [
        "kty": .string("OKP"),
        "crv": .string("Ed25519"),
        "x": .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
    ]

    /// RFC 8037 A.3: the thumbprint's input (the key's required members, in order, without whitespace).
    private static let rfc8037ThumbprintInput =
        #"{"crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#

    /// RFC 8037 A.3: the thumbprint (SHA-256, base64url).
    private static let rfc8037Thumbprint = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"

    /// RFC 8037 A.4: the payload, the JWS Signing Input (`{"alg":"EdDSA"}` and the payload) and the complete JWS.
    private static let rfc8037Payload = "Example of Ed25519 signing"
    private static let rfc8037SigningInput = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    private static let rfc8037JWS = rfcLines(
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.",
        "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
    )

    // MARK: RFC 7520, §3.4, §4 and §4.1

    /// RFC 7520 §4, Figure 7: the payload, in the RFC's own pieces; U+2019 is where the RFC writes "\xe2\x80\x99".
    private static let rfc7520Payload: String =
        "It\u{2019}s a dangerous business, Frodo, going out your "
        + "door. You step onto the road, and if you don't keep your feet, "
        + "there\u{2019}s no knowing where you might be swept off "
        + "to."

    /// RFC 7520 §3.4, Figure 4: the RSA key, private members included.
    private static let rfc7520RSAKey: [String: JSONValue] = [
        "kty": .string("RSA"),
        "kid": .string("bilbo.baggins@hobbiton.example"),
        "use": .string("sig"),
        "n": .string(
            rfcLines(
                "n4EPtAOCc9AlkeQHPzHStgAbgs7bTZLwUBZdR8_KuKPEHLd4rHVTeT",
                "-O-XV2jRojdNhxJWTDvNd7nqQ0VEiZQHz_AJmSCpMaJMRBSFKrKb2wqV",
                "wGU_NsYOYL-QtiWN2lbzcEe6XC0dApr5ydQLrHqkHHig3RBordaZ6Aj-",
                "oBHqFEHYpPe7Tpe-OfVfHd1E6cS6M1FZcD1NNLYD5lFHpPI9bTwJlsde",
                "3uhGqC0ZCuEHg8lhzwOHrtIQbS0FVbb9k3-tVTU4fg_3L_vniUFAKwuC",
                "LqKnS2BYwdq_mzSnbLY7h_qixoR7jig3__kRhuaxwUkRz5iaiQkqgc5g",
                "HdrNP5zw")),
        "e": .string("AQAB"),
        "d": .string(
            rfcLines(
                "bWUC9B-EFRIo8kpGfh0ZuyGPvMNKvYWNtB_ikiH9k20eT-O1q_I78e",
                "iZkpXxXQ0UTEs2LsNRS-8uJbvQ-A1irkwMSMkK1J3XTGgdrhCku9gRld",
                "Y7sNA_AKZGh-Q661_42rINLRCe8W-nZ34ui_qOfkLnK9QWDDqpaIsA-b",
                "MwWWSDFu2MUBYwkHTMEzLYGqOe04noqeq1hExBTHBOBdkMXiuFhUq1BU",
                "6l-DqEiWxqg82sXt2h-LMnT3046AOYJoRioz75tSUQfGCshWTBnP5uDj",
                "d18kKhyv07lhfSJdrPdM5Plyl21hsFf4L_mHCuoFau7gdsPfHPxxjVOc",
                "OpBrQzwQ")),
        "p": .string(
            rfcLines(
                "3Slxg_DwTXJcb6095RoXygQCAZ5RnAvZlno1yhHtnUex_fp7AZ_9nR",
                "aO7HX_-SFfGQeutao2TDjDAWU4Vupk8rw9JR0AzZ0N2fvuIAmr_WCsmG",
                "peNqQnev1T7IyEsnh8UMt-n5CafhkikzhEsrmndH6LxOrvRJlsPp6Zv8",
                "bUq0k")),
        "q": .string(
            rfcLines(
                "uKE2dh-cTf6ERF4k4e_jy78GfPYUIaUyoSSJuBzp3Cubk3OCqs6grT",
                "8bR_cu0Dm1MZwWmtdqDyI95HrUeq3MP15vMMON8lHTeZu2lmKvwqW7an",
                "V5UzhM1iZ7z4yMkuUwFWoBvyY898EXvRD-hdqRxHlSqAZ192zB3pVFJ0",
                "s7pFc")),
        "dp": .string(
            rfcLines(
                "B8PVvXkvJrj2L-GYQ7v3y9r6Kw5g9SahXBwsWUzp19TVlgI-YV85q",
                "1NIb1rxQtD-IsXXR3-TanevuRPRt5OBOdiMGQp8pbt26gljYfKU_E9xn",
                "-RULHz0-ed9E9gXLKD4VGngpz-PfQ_q29pk5xWHoJp009Qf1HvChixRX",
                "59ehik")),
        "dq": .string(
            rfcLines(
                "CLDmDGduhylc9o7r84rEUVn7pzQ6PF83Y-iBZx5NT-TpnOZKF1pEr",
                "AMVeKzFEl41DlHHqqBLSM0W1sOFbwTxYWZDm6sI6og5iTbwQGIC3gnJK",
                "bi_7k_vJgGHwHxgPaX2PnvP-zyEkDERuf-ry4c_Z11Cq9AqC2yeL6kdK",
                "T1cYF8")),
        "qi": .string(
            rfcLines(
                "3PiqvXQN0zwMeE-sBvZgi289XP9XCQF3VWqPzMKnIgQp7_Tugo6-N",
                "ZBKCQsMf3HaEGBjTVJs_jcK8-TRXvaKe-7ZMaQj8VfBdYkssbu0NKDDh",
                "jJ-GtiseaDVWt7dcH0cfwxgFUHpQh7FoCrjFJ6h6ZEpMF6xmujs4qMpP",
                "z8aaI4")),
    ]

    /// RFC 7520 §4.1.3, Figure 13: the JWS of §4.1 (RS256, `kid` "bilbo.baggins@hobbiton.example") in the compact
    /// serialization.
    private static let rfc7520RS256JWS = rfcLines(
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImJpbGJvLmJhZ2dpbnNAaG9iYml0b24uZX",
        "hhbXBsZSJ9",
        ".",
        "SXTigJlzIGEgZGFuZ2Vyb3VzIGJ1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IH",
        "lvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9hZCwgYW5kIGlmIHlvdSBk",
        "b24ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcm",
        "UgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4",
        ".",
        "MRjdkly7_-oTPTS3AXP41iQIGKa80A0ZmTuV5MEaHoxnW2e5CZ5NlKtainoFmK",
        "ZopdHM1O2U4mwzJdQx996ivp83xuglII7PNDi84wnB-BDkoBwA78185hX-Es4J",
        "IwmDLJK3lfWRa-XtL0RnltuYv746iYTh_qHRD68BNt1uSNCrUCTJDt5aAE6x8w",
        "W1Kt9eRo4QPocSadnHXFxnt8Is9UzpERV0ePPQdLuW3IS_de3xyIrDaLGdjluP",
        "xUAhb6L2aXic1U12podGU0KLUQSE_oI-ZnmKJ3F4uOZDnd6QZWJushZ41Axf_f",
        "cIe8u9ipH84ogoree7vjbU5y18kDquDg"
    )

    // MARK: Helpers

    /// The members MendJOSE's JWK reader refuses as private: RSA's `d`, `p`, `q`, `dp`, `dq`, `qi` (RFC 7518
    /// §6.3.2), EC's and OKP's `d` (RFC 7518 §6.2.2, RFC 8037 §2).
    private static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi"]

    /// `key` without its private members: the public key of the RFC's key pair.
    private static func publicMembers(of key: [String: JSONValue]) -> [String: JSONValue] {
        key.filter { !privateMembers.contains($0.key) }
    }

    /// The kind of error with which MendJOSE refuses `token` signed by `key`, for a use that allows `allowed`; `nil`
    /// when it verifies.
    private static func refusal(of token: String, by key: JWSPublicKey, allowed: JWSAlgorithms) -> JOSEError.Kind? {
        do throws(JOSEError) {
            _ = try CompactJWS(token).verified(with: key, allowed: allowed)
            return nil
        } catch {
            return error.kind
        }
    }

    /// The kind of error with which the JWK reader refuses `jwk`; `nil` when it reads it.
    private static func refusal(ofKey jwk: [String: JSONValue]) -> JOSEError.Kind? {
        do throws(JOSEError) {
            _ = try JWK.publicKey(jwk)
            return nil
        } catch {
            return error.kind
        }
    }

    // MARK: Tests

    @Test("RFC 7515 A.3 (ES256): the JWS verifies with the A.3 key, and not for another algorithm, signature, spelling")
    func rfc7515ES256() throws {
        #expect(Self.refusal(ofKey: Self.rfc7515ECKey) == .key)
        let key = try JWK.publicKey(Self.publicMembers(of: Self.rfc7515ECKey))
        guard case .p256 = key.material else {
            Issue.record("the A.3 key is not read as a P-256 key")
            return
        }
        let jws = Self.rfc7515ES256JWS
        let verified = try CompactJWS(jws).verified(with: key, allowed: JWSAlgorithms([.es256]))
        #expect(verified.header.algorithm == .es256)
        #expect(verified.header.keyID == nil)
        #expect(verified.payload == Self.rfc7515Payload)

        // The use's allow-list decides, whatever the token and the key agree on.
        #expect(Self.refusal(of: jws, by: key, allowed: JWSAlgorithms([.rs256])) == .header)
        // Another signature: the 64 bytes are 86 characters, the last carrying 2 bits and 4 zero bits, so replacing
        // it with "A" (or "g" when it is "A") changes the signature and keeps the spelling canonical.
        let signature = try #require(jws.split(separator: ".").last)
        let altered = String(jws.dropLast()) + (signature.last == "A" ? "g" : "A")
        #expect(Base64URL.decodeCanonical(Array(altered.split(separator: ".")[2].utf8)) != nil)
        #expect(Self.refusal(of: altered, by: key, allowed: .idToken) == .signature)
        // Another spelling of the same bytes: padding is not base64url as JWS has it (RFC 7515 §2).
        #expect(Self.refusal(of: jws + "==", by: key, allowed: .idToken) == .malformed)
        // The A.2 RSA key does not verify an ES256 token, even where the use allows both algorithms.
        let rsaKey = try JWK.publicKey(Self.publicMembers(of: Self.rfc7515RSAKey))
        #expect(Self.refusal(of: jws, by: rsaKey, allowed: .idToken) == .key)
    }

    @Test("RFC 7515 A.2 (RS256): the JWS verifies with the A.2 key, and its payload is the RFC's octets")
    func rfc7515RS256() throws {
        #expect(Self.refusal(ofKey: Self.rfc7515RSAKey) == .key)
        let key = try JWK.publicKey(Self.publicMembers(of: Self.rfc7515RSAKey))
        guard case .rsa = key.material else {
            Issue.record("the A.2 key is not read as an RSA key")
            return
        }
        let verified = try CompactJWS(Self.rfc7515RS256JWS).verified(with: key, allowed: .idToken)
        #expect(verified.header.algorithm == .rs256)
        #expect(verified.payload == Self.rfc7515Payload)
        #expect(
            String(decoding: verified.payload, as: UTF8.self)
                == "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}")
        // The key's public members are written back as the RFC has them.
        let required = Self.rfc7515RSAKey.filter { ["kty", "n", "e"].contains($0.key) }
        #expect(JWK.requiredMembers(of: key) == required)
    }

    @Test("RFC 8037 A.1-A.4 (Ed25519): the key, its thumbprint, and the JWS verified and signed again byte for byte")
    func rfc8037EdDSA() throws {
        #expect(Self.refusal(ofKey: Self.rfc8037PrivateKey) == .key)
        #expect(Self.publicMembers(of: Self.rfc8037PrivateKey) == Self.rfc8037PublicKey)
        let key = try JWK.publicKey(Self.rfc8037PublicKey)
        guard case .ed25519(let publicKey) = key.material else {
            Issue.record("the A.2 key is not read as an Ed25519 key")
            return
        }
        #expect(key.algorithm == .edDSA)

        // A.3: the thumbprint, and the canonical JSON it hashes.
        #expect(JSONValue.object(JWK.requiredMembers(of: key)).jsonText() == Self.rfc8037ThumbprintInput)
        #expect(JWK.thumbprint(of: key) == Self.rfc8037Thumbprint)

        // A.4: the published JWS verifies.
        let verified = try CompactJWS(Self.rfc8037JWS).verified(with: key, allowed: .session)
        #expect(verified.header.algorithm == .edDSA)
        #expect(verified.payload == Array(Self.rfc8037Payload.utf8))
        #expect(Self.rfc8037JWS.hasPrefix(Self.rfc8037SigningInput + "."))

        // A.1's private key signs A.4's signing input again.
        guard case .string(let d)? = Self.rfc8037PrivateKey["d"], case .string(let x)? = Self.rfc8037PublicKey["x"]
        else {
            Issue.record("the RFC 8037 keys have no d or x")
            return
        }
        let seed = try #require(Base64URL.decode(d))
        let privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        #expect(privateKey.publicKey.rawRepresentation == publicKey.rawRepresentation)
        #expect(Base64URL.encode(privateKey.publicKey.rawRepresentation) == x)
        let signature = try privateKey.signature(for: Data(Self.rfc8037SigningInput.utf8))
        #expect(key.isValidSignature(Array(signature), for: Array(Self.rfc8037SigningInput.utf8)))
        #if canImport(CryptoKit)
            // swift-crypto is CryptoKit here, and CryptoKit randomizes Ed25519 signatures (against side channels; RFC
            // 8032 has them deterministic): a new signature verifies, but is not A.4's.
        #else
            #expect(Self.rfc8037SigningInput + "." + Base64URL.encode(signature) == Self.rfc8037JWS)
        #endif
    }

    @Test("RFC 7638 §3.1: the example RSA key's SHA-256 thumbprint is the RFC's")
    func rfc7638Thumbprint() throws {
        let key = try JWK.publicKey(Self.rfc7638Key)
        guard case .rsa = key.material else {
            Issue.record("the RFC 7638 key is not read as an RSA key")
            return
        }
        #expect(key.keyID == "2011-04-29")
        #expect(JWK.thumbprint(of: key) == Self.rfc7638Thumbprint)
        // Written back, the key is the RFC's JWK, member for member.
        #expect(JWK.publicJSON(of: key, use: nil) == .object(Self.rfc7638Key))
    }

    @Test("RFC 7520 §4.1 (RS256): the cookbook's JWS verifies with the §3.4 key, and its payload is Figure 7's text")
    func rfc7520RS256() throws {
        #expect(Self.refusal(ofKey: Self.rfc7520RSAKey) == .key)
        let key = try JWK.publicKey(Self.publicMembers(of: Self.rfc7520RSAKey))
        guard case .rsa = key.material else {
            Issue.record("the RFC 7520 key is not read as an RSA key")
            return
        }
        #expect(key.keyID == "bilbo.baggins@hobbiton.example")
        let verified = try CompactJWS(Self.rfc7520RS256JWS).verified(with: key, allowed: .idToken)
        #expect(verified.header.algorithm == .rs256)
        #expect(verified.header.keyID == key.keyID)
        #expect(verified.payload == Array(Self.rfc7520Payload.utf8))
        // Two RIGHT SINGLE QUOTATION MARKs, three bytes each in UTF-8; the apostrophe of "don't" is U+0027.
        let quotationMarks = Self.rfc7520Payload.unicodeScalars.filter { $0 == "\u{2019}" }
        #expect(quotationMarks.count == 2)
        #expect(verified.payload.count == Self.rfc7520Payload.unicodeScalars.count + 4)
    }
}

/// A value the RFC prints across lines "for display purposes only", joined back into one.
private func rfcLines(_ lines: String...) -> String {
    lines.joined()
}
