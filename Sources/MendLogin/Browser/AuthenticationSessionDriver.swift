#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
    public import AuthenticationServices
    public import Foundation
    public import MendCore

    /// The ASWebAuthenticationSession adapter: it starts and cancels the system session and maps its errors. All
    /// the logic is in ``SystemBrowserPresenter``.
    @MainActor
    final class AuthenticationSessionDriver: NSObject, WebAuthenticationDriver {
        private let anchor: @MainActor () -> ASPresentationAnchor?
        private var session: ASWebAuthenticationSession?

        /// A driver that presents from the window `anchor` returns.
        init(anchor: @escaping @MainActor () -> ASPresentationAnchor?) {
            self.anchor = anchor
        }

        /// Starts an ASWebAuthenticationSession for `request` (an `https` callback needs iOS 17.4, macOS 14.4 or
        /// visionOS 1.1; before, the session does not start).
        func start(
            _ request: WebAuthenticationRequest, completion: @escaping @Sendable (WebAuthenticationOutcome) -> Void
        ) -> Bool {
            // @Sendable: the system may call it off the main actor.
            let handler: @Sendable (URL?, (any Error)?) -> Void = { url, error in
                if let url { return completion(.redirected(url)) }
                switch (error as? ASWebAuthenticationSessionError)?.code {
                case .canceledLogin?: completion(.userCancelled)
                case .presentationContextNotProvided?: completion(.presentationContextNotProvided)
                case .presentationContextInvalid?: completion(.presentationContextInvalid)
                default: completion(.failed(error.map { "\($0)" } ?? "no callback URL and no error"))
                }
            }
            let session: ASWebAuthenticationSession
            switch request.callback {
            case .customScheme(let scheme):
                session = ASWebAuthenticationSession(
                    url: request.url, callbackURLScheme: scheme, completionHandler: handler)
            case .https(let host, let path):
                guard #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) else { return false }
                session = ASWebAuthenticationSession(
                    url: request.url, callback: .https(host: host, path: path), completionHandler: handler)
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = request.prefersEphemeralSession
            self.session = session
            return session.start()
        }

        /// Cancels the running session.
        func cancel() {
            session?.cancel()
            session = nil
        }
    }

    extension AuthenticationSessionDriver: @preconcurrency ASWebAuthenticationPresentationContextProviding {
        /// The window the app gave, for the system to present the session from.
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            // With no window, an empty anchor: the session then fails with presentationContextInvalid, which the
            // presenter reports as login/321.
            anchor() ?? ASPresentationAnchor()
        }
    }

    extension SystemBrowserPresenter {
        /// A presenter over ASWebAuthenticationSession, presenting from the window `anchor` returns.
        ///
        /// - Throws: `login/321` when `redirectURI` cannot end a system session (`http`, no scheme).
        public init(
            redirectURI: URL, prefersEphemeralSession: Bool = false,
            anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor?
        ) throws(MendError) {
            try self.init(
                redirectURI: redirectURI, prefersEphemeralSession: prefersEphemeralSession,
                driver: { AuthenticationSessionDriver(anchor: anchor) })
        }
    }
#endif
