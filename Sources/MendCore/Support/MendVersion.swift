import Foundation

/// Mend's version.
public enum MendVersion {
    /// The version of this build.
    public static let current = "0.1.0"

    /// The platform this build runs on, as a `Mend-Client` header names it (`iOS 18.1`, `macOS 15.2`, `Linux`).
    package static var platform: String {
        #if os(Linux)
            return "Linux"
        #elseif os(Windows)
            return "Windows"
        #else
            #if os(iOS)
                let name = "iOS"
            #elseif os(macOS)
                let name = "macOS"
            #elseif os(tvOS)
                let name = "tvOS"
            #elseif os(watchOS)
                let name = "watchOS"
            #elseif os(visionOS)
                let name = "visionOS"
            #else
                let name = "unknown"
            #endif
            let version = ProcessInfo.processInfo.operatingSystemVersion
            return "\(name) \(version.majorVersion).\(version.minorVersion)"
        #endif
    }

    /// `name/version (platform)`: what a Mend client sends as its `Mend-Client` header, so that the backend's list
    /// of the user's sessions can say which device each is.
    public static func clientIdentifier(name: String, version: String = current) -> String {
        "\(name)/\(version) (\(platform))"
    }
}
