import Foundation

/// Mend's version.
public enum MendVersion {
    /// The version of this build.
    public static let current = "0.1.0"

    /// The platform this build runs on, as a `Mend-Client` header names it (`iOS 18.1`, `macOS 15.2`, `Linux`).
    public static var platform: String {
        #if os(iOS) || os(macOS) || os(tvOS) || os(watchOS) || os(visionOS)
            let version = ProcessInfo.processInfo.operatingSystemVersion
            let number = "\(version.majorVersion).\(version.minorVersion)"
        #endif
        #if os(iOS)
            return "iOS \(number)"
        #elseif os(macOS)
            return "macOS \(number)"
        #elseif os(tvOS)
            return "tvOS \(number)"
        #elseif os(watchOS)
            return "watchOS \(number)"
        #elseif os(visionOS)
            return "visionOS \(number)"
        #elseif os(Linux)
            return "Linux"
        #elseif os(Windows)
            return "Windows"
        #else
            return "unknown"
        #endif
    }

    /// `name/version (platform)`: what a Mend client sends as its `Mend-Client` header, so that the backend's list
    /// of the user's sessions can say which device each is.
    public static func clientIdentifier(name: String, version: String = current) -> String {
        "\(name)/\(version) (\(platform))"
    }
}
