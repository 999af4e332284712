import Foundation
package import MendCore
package import MendJOSE

// The WebAuthn Level 3 JSON serialization (§5.1.9-§5.1.11, §5.4, §5.5): what `PublicKeyCredential
// .parseCreationOptionsFromJSON`, `.parseRequestOptionsFromJSON` and `toJSON()` read and write, so that a page hands
// the server's options to the browser and the browser's answer to the server unchanged. Binary members are base64url
// without padding.

/// A credential named in options (`PublicKeyCredentialDescriptorJSON`): `excludeCredentials`, `allowCredentials`.
package struct CredentialDescriptor: Sendable, Hashable {
    /// The credential ID.
    package var id: [UInt8]
    /// Its transports as the authenticator reported them (`internal`, `hybrid`, `usb`, …), when known.
    package var transports: [String]

    package init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["type": .string("public-key"), "id": .string(Base64URL.encode(id))]
        if !transports.isEmpty { members["transports"] = .array(transports.map(JSONValue.string)) }
        return .object(members)
    }

    init(json: JSONValue) throws(WebAuthnError) {
        guard case .object(let members) = json, members["type"] == .string("public-key") else {
            throw WebAuthnError(.malformed, "a credential descriptor is not an object of type public-key")
        }
        id = try WebAuthnJSON.bytes(members["id"], "a credential descriptor's id")
        transports = try WebAuthnJSON.strings(members["transports"], "a credential descriptor's transports")
    }
}

/// What the relying party asks of the user's verification (`UserVerificationRequirement`).
package enum UserVerificationRequirement: String, Sendable, Hashable {
    /// The ceremony fails without it (Mend's default).
    case required
    /// Asked for; a response without it is accepted.
    case preferred
    /// Not asked for.
    case discouraged
}

/// `PublicKeyCredentialCreationOptionsJSON`: what the server sends to add a passkey.
package struct CreationOptions: Sendable, Hashable {
    /// The RP ID (a registrable domain suffix of the page's origin) and its name.
    package var rpID: String
    package var rpName: String
    /// The user handle (opaque bytes, never an email), the account name and the name to show.
    package var userID: [UInt8]
    package var userName: String
    package var userDisplayName: String
    /// The challenge.
    package var challenge: [UInt8]
    /// The credential algorithms accepted, in order of preference.
    package var algorithms: [COSEAlgorithm]
    /// The time the user has, in milliseconds.
    package var timeoutMilliseconds: Int?
    /// The user's credentials already registered: an authenticator holding one refuses to make another.
    package var excludeCredentials: [CredentialDescriptor]
    /// `residentKey`: `required` for a passkey (a discoverable credential).
    package var residentKey: String
    /// The user verification asked for.
    package var userVerification: UserVerificationRequirement
    /// The attestation conveyance asked for: `none`.
    package var attestation: String

    package init(
        rpID: String, rpName: String, userID: [UInt8], userName: String, userDisplayName: String, challenge: [UInt8],
        algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256], timeoutMilliseconds: Int? = 300_000,
        excludeCredentials: [CredentialDescriptor] = [], residentKey: String = "required",
        userVerification: UserVerificationRequirement = .required, attestation: String = "none"
    ) {
        self.rpID = rpID
        self.rpName = rpName
        self.userID = userID
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.challenge = challenge
        self.algorithms = algorithms
        self.timeoutMilliseconds = timeoutMilliseconds
        self.excludeCredentials = excludeCredentials
        self.residentKey = residentKey
        self.userVerification = userVerification
        self.attestation = attestation
    }

    /// The JSON serialization.
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "rp": .object(["id": .string(rpID), "name": .string(rpName)]),
            "user": .object([
                "id": .string(Base64URL.encode(userID)), "name": .string(userName),
                "displayName": .string(userDisplayName),
            ]),
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(
                algorithms.map { .object(["type": .string("public-key"), "alg": .int(Int($0.rawValue))]) }),
            "excludeCredentials": .array(excludeCredentials.map(\.json)),
            "authenticatorSelection": .object([
                "residentKey": .string(residentKey), "requireResidentKey": .bool(residentKey == "required"),
                "userVerification": .string(userVerification.rawValue),
            ]),
            "attestation": .string(attestation),
            "extensions": .object(["credProps": .bool(true)]),
        ]
        if let timeoutMilliseconds { members["timeout"] = .int(timeoutMilliseconds) }
        return .object(members)
    }

    /// Reads the JSON serialization (what an authenticator is given). Algorithms Mend does not verify are skipped.
    package init(json: JSONValue) throws(WebAuthnError) {
        guard case .object(let members) = json, case .object(let rp)? = members["rp"],
            case .object(let user)? = members["user"], case .array(let parameters)? = members["pubKeyCredParams"]
        else { throw WebAuthnError(.malformed, "the creation options lack rp, user or pubKeyCredParams") }
        guard case .string(let rpName)? = rp["name"], case .string(let userName)? = user["name"],
            case .string(let displayName)? = user["displayName"]
        else { throw WebAuthnError(.malformed, "the creation options' rp or user lack their names") }
        let selection = members["authenticatorSelection"]?.objectValue ?? [:]
        self.init(
            rpID: rp["id"]?.stringValue ?? "", rpName: rpName,
            userID: try WebAuthnJSON.bytes(user["id"], "the user's id"), userName: userName,
            userDisplayName: displayName,
            challenge: try WebAuthnJSON.bytes(members["challenge"], "the challenge"),
            algorithms: parameters.compactMap { $0["alg"]?.intValue.flatMap { COSEAlgorithm(rawValue: Int64($0)) } },
            timeoutMilliseconds: members["timeout"]?.intValue,
            excludeCredentials: try WebAuthnJSON.descriptors(members["excludeCredentials"]),
            residentKey: selection["residentKey"]?.stringValue ?? "discouraged",
            userVerification: selection["userVerification"]?.stringValue
                .flatMap(UserVerificationRequirement.init(rawValue:)) ?? .preferred,
            attestation: members["attestation"]?.stringValue ?? "none")
    }
}

/// `PublicKeyCredentialRequestOptionsJSON`: what the server sends to sign in.
package struct RequestOptions: Sendable, Hashable {
    /// The challenge.
    package var challenge: [UInt8]
    /// The RP ID.
    package var rpID: String
    /// The credentials that may answer; empty for a usernameless sign-in (any discoverable credential of the RP).
    package var allowCredentials: [CredentialDescriptor]
    /// The user verification asked for.
    package var userVerification: UserVerificationRequirement
    /// The time the user has, in milliseconds.
    package var timeoutMilliseconds: Int?

    package init(
        challenge: [UInt8], rpID: String, allowCredentials: [CredentialDescriptor] = [],
        userVerification: UserVerificationRequirement = .required, timeoutMilliseconds: Int? = 300_000
    ) {
        self.challenge = challenge
        self.rpID = rpID
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The JSON serialization.
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(rpID),
            "allowCredentials": .array(allowCredentials.map(\.json)),
            "userVerification": .string(userVerification.rawValue),
        ]
        if let timeoutMilliseconds { members["timeout"] = .int(timeoutMilliseconds) }
        return .object(members)
    }

    /// Reads the JSON serialization.
    package init(json: JSONValue) throws(WebAuthnError) {
        guard case .object(let members) = json else {
            throw WebAuthnError(.malformed, "the request options are not an object")
        }
        self.init(
            challenge: try WebAuthnJSON.bytes(members["challenge"], "the challenge"),
            rpID: members["rpId"]?.stringValue ?? "",
            allowCredentials: try WebAuthnJSON.descriptors(members["allowCredentials"]),
            userVerification: members["userVerification"]?.stringValue
                .flatMap(UserVerificationRequirement.init(rawValue:)) ?? .preferred,
            timeoutMilliseconds: members["timeout"]?.intValue)
    }
}

/// `RegistrationResponseJSON`: a new credential, as `toJSON()` gives it.
package struct RegistrationResponse: Sendable, Hashable {
    /// The credential ID.
    package var credentialID: [UInt8]
    /// The client data's JSON bytes.
    package var clientDataJSON: [UInt8]
    /// The attestation object's CBOR bytes.
    package var attestationObject: [UInt8]
    /// The transports the authenticator reported.
    package var transports: [String]
    /// `platform` or `cross-platform`, when the browser said.
    package var authenticatorAttachment: String?
    /// The `credProps` extension's `rk`: whether the credential is discoverable, when the browser said.
    package var residentKey: Bool?

    package init(
        credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String] = [],
        authenticatorAttachment: String? = nil, residentKey: Bool? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
    }

    /// Reads `toJSON()`'s output: `id` and `rawId` must name the same credential, `type` must be `public-key`.
    package init(json: JSONValue) throws(WebAuthnError) {
        let (members, response) = try WebAuthnJSON.credential(json)
        self.init(
            credentialID: try WebAuthnJSON.credentialID(members),
            clientDataJSON: try WebAuthnJSON.bytes(response["clientDataJSON"], "response.clientDataJSON"),
            attestationObject: try WebAuthnJSON.bytes(response["attestationObject"], "response.attestationObject"),
            transports: try WebAuthnJSON.strings(response["transports"], "response.transports"),
            authenticatorAttachment: members["authenticatorAttachment"]?.stringValue,
            residentKey: members["clientExtensionResults"]?["credProps"]?["rk"]?.boolValue)
    }

    /// The JSON serialization (what an authenticator's answer becomes).
    package var json: JSONValue {
        let id = JSONValue.string(Base64URL.encode(credentialID))
        var extensions: [String: JSONValue] = [:]
        if let residentKey { extensions["credProps"] = .object(["rk": .bool(residentKey)]) }
        var members: [String: JSONValue] = [
            "id": id, "rawId": id, "type": .string("public-key"), "clientExtensionResults": .object(extensions),
            "response": .object([
                "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
                "attestationObject": .string(Base64URL.encode(attestationObject)),
                "transports": .array(transports.map(JSONValue.string)),
            ]),
        ]
        if let authenticatorAttachment { members["authenticatorAttachment"] = .string(authenticatorAttachment) }
        return .object(members)
    }
}

/// `AuthenticationResponseJSON`: an assertion, as `toJSON()` gives it.
package struct AuthenticationResponse: Sendable, Hashable {
    /// The credential ID.
    package var credentialID: [UInt8]
    /// The client data's JSON bytes.
    package var clientDataJSON: [UInt8]
    /// The authenticator data's bytes.
    package var authenticatorData: [UInt8]
    /// The signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    package var signature: [UInt8]
    /// The user handle the credential was made for (a discoverable credential gives it; required for a
    /// usernameless sign-in).
    package var userHandle: [UInt8]?

    package init(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// Reads `toJSON()`'s output.
    package init(json: JSONValue) throws(WebAuthnError) {
        let (members, response) = try WebAuthnJSON.credential(json)
        var userHandle: [UInt8]?
        switch response["userHandle"] {
        case nil, .null?: userHandle = nil
        case let value?: userHandle = try WebAuthnJSON.bytes(value, "response.userHandle")
        }
        self.init(
            credentialID: try WebAuthnJSON.credentialID(members),
            clientDataJSON: try WebAuthnJSON.bytes(response["clientDataJSON"], "response.clientDataJSON"),
            authenticatorData: try WebAuthnJSON.bytes(response["authenticatorData"], "response.authenticatorData"),
            signature: try WebAuthnJSON.bytes(response["signature"], "response.signature"), userHandle: userHandle)
    }

    /// The JSON serialization.
    package var json: JSONValue {
        let id = JSONValue.string(Base64URL.encode(credentialID))
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(authenticatorData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let userHandle { response["userHandle"] = .string(Base64URL.encode(userHandle)) }
        return .object([
            "id": id, "rawId": id, "type": .string("public-key"), "clientExtensionResults": .object([:]),
            "response": .object(response),
        ])
    }
}

/// The JSON serialization's shared readers.
package enum WebAuthnJSON {
    /// The bytes of a base64url member (padding allowed, as some platforms send it). Standard base64 (`+`, `/`) —
    /// what native code often sends by mistake — is refused with a reason that says so.
    package static func bytes(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard case .string(let text)? = value else { throw WebAuthnError(.malformed, "\(name) is not a string") }
        if text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) {
            throw WebAuthnError(.malformed, "\(name) is base64 (with + or /); WebAuthn's JSON uses base64url")
        }
        guard let bytes = Base64URL.decodeBytes(text.utf8) else {
            throw WebAuthnError(.malformed, "\(name) is not base64url")
        }
        return bytes
    }

    static func strings(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw WebAuthnError(.malformed, "\(name) holds a non-string")
                }
                strings.append(text)
            }
            return strings
        default: throw WebAuthnError(.malformed, "\(name) is not an array")
        }
    }

    static func descriptors(_ value: JSONValue?) throws(WebAuthnError) -> [CredentialDescriptor] {
        guard case .array(let items)? = value else { return [] }
        var descriptors: [CredentialDescriptor] = []
        for item in items { descriptors.append(try CredentialDescriptor(json: item)) }
        return descriptors
    }

    static func credential(
        _ json: JSONValue
    ) throws(WebAuthnError) -> (members: [String: JSONValue], response: [String: JSONValue]) {
        guard case .object(let members) = json, case .object(let response)? = members["response"] else {
            throw WebAuthnError(.malformed, "the credential is not an object with a response object")
        }
        guard members["type"] == .string("public-key") else {
            throw WebAuthnError(.malformed, "the credential's type is not public-key")
        }
        return (members, response)
    }

    static func credentialID(_ members: [String: JSONValue]) throws(WebAuthnError) -> [UInt8] {
        let raw = try bytes(members["rawId"], "rawId")
        let id = try bytes(members["id"], "id")
        guard raw == id, !raw.isEmpty, raw.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw WebAuthnError(.malformed, "id and rawId are not the same credential ID of 1 to 1,023 bytes")
        }
        return raw
    }
}
