// MendServer: the login backend (`mend-server`), a Hummingbird 2 application built by a function.
//
// Entry points: `buildApplication(configuration:)` (open the database, run migrations, build the app),
// `LoginBackend` (the state behind the routes, for tests and tools) and its `withRunningServer`/`runUntilSignalled`
// (the run loop every Mend server shares, from MendServing). Folders by concern: Configuration (settings, the
// environment, id_token issuers, keys), Application (building and running it, `LoginBackend`), Routes (the route
// table, request schemas and bodies), Sessions (code, id_token and profile logins, sessions, signing, refresh
// rotation, the revocation view, account deletion), Provider (every provider is a `CodeLoginProvider`: Facebook's
// code login and Graph calls with appsecret_proof, OpenID Connect issuers' code logins, the token keepers that keep and
// revoke Apple's and Google's tokens), Storage (sql-kit over SQLite or PostgreSQL), Callbacks (signed_request),
// Operations (request ids, errors, rate limits, metrics, OpenAPI) and Background (the provider-token validity check).
// No client module may depend on this one: the app secret lives here and nowhere else.
