import Configuration
import Foundation

/// The Mend tools' own variables outside mend-server's configuration: the `mend` tool's and `mend-server admin`'s.
/// Read, like mend-server's, through swift-configuration's environment provider (the secrets marked so), and known to
/// the unknown-name scan, which does not warn about them.
package enum ToolVariable: String, CaseIterable, Sendable {
    /// `mend graph` and `mend graphql`: the access token to send, instead of the stored session.
    case accessToken = "MEND_ACCESS_TOKEN"
    /// `mend login --device`: the app's client token.
    case clientToken = "MEND_CLIENT_TOKEN"
    /// `mend login --device`: the app's client secret, where a provider's device flow needs one.
    case clientSecret = "MEND_CLIENT_SECRET"
    /// `mend-server admin`: the admin API's base URL.
    case adminURL = "MEND_ADMIN_URL"
    /// `mend-server admin`: the admin token.
    case adminToken = "MEND_ADMIN_TOKEN"

    private var isSecret: Bool { self != .adminURL }

    /// The variable's value in `environment` (the process's by default); `nil` when unset or empty.
    package func value(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let text: String?
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            let provider = EnvironmentVariablesProvider(
                environmentVariables: environment, secretsSpecifier: isSecret ? .all : .none)
            text = ConfigReader(provider: provider).string(forKey: ConfigKey([rawValue]), isSecret: isSecret)
        } else {
            // Below macOS 15 (swift-configuration's floor) the tools still run: the one direct read.
            text = environment[rawValue]
        }
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
