public import MendCore

extension MendError {
    /// A login error (domain `login`, codes 300–310, with parity to the vendor SDK) with a developer message.
    package static func login(
        _ code: MendError.Code, _ developerMessage: String, underlying: (any Error & Sendable)? = nil
    )
        -> MendError
    {
        var error = MendError(code: code, developerMessage: developerMessage, catalog: .login)
        error.underlying = underlying
        return error
    }
}
