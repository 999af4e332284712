// QuickStart: log in with PKCE through the browser, read the Graph API, and handle every error category.
//
//   swift run --traits Server mend emulate --port 8080 &            (in the Mend checkout: a local provider)
//   swift run QuickStart http://127.0.0.1:8080 111111111111111
import Foundation
import MendCore
import MendFacebook
import MendGraphAPI
import MendHTTPURLSession
import MendLogin

let arguments = CommandLine.arguments
guard arguments.count >= 3, let baseURL = URL(string: arguments[1]) else {
    print("usage: QuickStart <provider base URL> <app id> [backend URL]")
    exit(64)
}
let transport = URLSessionTransport()
let provider = LoginProvider.emulator(baseURL: baseURL, appID: arguments[2])  // .facebook(appID:) for the real one
// The default: your backend exchanges the code; without one, a public client exchanges it with PKCE.
let authority: any SessionAuthority =
    if arguments.count > 3, let backend = URL(string: arguments[3]) {
        BackendSessionClient(baseURL: backend, transport: transport)
    } else {
        FacebookSessionAuthority(provider: provider, transport: transport)
    }
let credentials = CredentialsManager(store: FileTokenStore(name: "quickstart"), authority: authority)
let login = LoginManager(provider: provider, credentials: credentials)
let presenter = LoopbackBrowserPresenter(opener: .system)
// The Graph API takes the provider's token (a backend hands it out with MEND_RETURN_PROVIDER_TOKEN=true); when the
// provider rejects it, SessionCredentials refreshes the session, else logs in again, and the call is replayed once.
let graph = GraphClient(
    transport: transport, configuration: .init(graphURL: baseURL),
    credentials: SessionCredentials(login: login, presenter: presenter, token: .provider))

do {
    if try await credentials.currentSession() == nil {
        let result = try await login.logIn(presenter: presenter)
        if result.isCancelled {
            print("Login cancelled.")  // not an error: nothing to show
            exit(0)
        }
    }
    let me = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"])).json()
    print("Hello, \(me["name"]?.stringValue ?? "you")!")
} catch let error as MendError {
    // Transient errors were already retried (with backoff, within the budget); an expired token was recovered.
    switch error.category {
    case .transient:
        print("\(error.userMessage) — try again \(error.recovery.notBefore.map { "after \($0)" } ?? "later").")
    case .recoverable:
        print("\(error.userTitle): \(error.userMessage) [\(error.recoveryOptions.joined(separator: " / "))]")
    case .other:
        print("\(error.userMessage) (reference \(error.referenceIDOrNone))")
    }
    exit(1)
}
