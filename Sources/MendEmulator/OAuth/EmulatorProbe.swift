/// Pure policies of the emulator, exposed for tests and tools.
public enum EmulatorProbe {
    /// Whether the login dialog accepts `uri` for an app with the `registered` redirect URIs: exact match, except
    /// that loopback `http` redirects may use any port (RFC 8252 §7.3).
    public static func redirectAllowed(_ uri: String, registered: [String]) -> Bool {
        RedirectURIMatcher.isAllowed(uri, registered: registered)
    }
}
