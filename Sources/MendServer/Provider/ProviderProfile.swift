import Foundation
import MendCore

/// The user's profile as the provider returns it (`GET /me?fields=id,name,email,picture`).
struct ProviderProfile: Sendable, Hashable {
    var id: String
    var name: String
    var email: String?
    var picture: String?

    init(id: String, name: String, email: String? = nil, picture: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.picture = picture
    }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue ?? json["id"]?.intValue.map(String.init) else { return nil }
        self.init(
            id: id, name: json["name"]?.stringValue ?? "", email: json["email"]?.stringValue,
            picture: json["picture"]?["data"]?["url"]?.stringValue ?? json["picture"]?.stringValue)
    }
}

/// A provider access token and its lifetime.
struct ProviderToken: Sendable, Hashable {
    var value: String
    var expiresIn: Int?
}

/// The user's permissions (`GET /me/permissions`).
struct ProviderPermissions: Sendable, Hashable {
    var granted: [String]
    var declined: [String]

    init(granted: [String], declined: [String]) {
        self.granted = granted
        self.declined = declined
    }

    init(json: JSONValue) {
        var granted: [String] = []
        var declined: [String] = []
        for item in json["data"]?.arrayValue ?? [] {
            guard let name = item["permission"]?.stringValue else { continue }
            if item["status"]?.stringValue == "granted" { granted.append(name) } else { declined.append(name) }
        }
        self.init(granted: granted, declined: declined)
    }
}
