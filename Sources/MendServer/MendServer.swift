// MendServer: the login backend (`mend-server`), a Hummingbird 2 application built by a function.
//
// Entry points: `buildApplication(configuration:)` (open the database, run migrations, build the app),
// `LoginBackend` (the state behind the routes, for tests and tools) and its `withRunningServer`/`runUntilSignalled`
// (the run loop every Mend server shares, from MendServing). `LoginBackend` composes its parts, which share a
// `BackendContext` (configuration, store, metrics, redactor, rate limits): `SessionAuthority` (sessions) and
// `ProviderLogins` (logins); it keeps the user's account at the provider (deletion, profile, logout's permission
// revocation, callbacks, the validity check). Folders by concern: Configuration (the five groups, the environment,
// id_token issuers, keys), Application (building and running it, `LoginBackend`, its context, the account), Routes
// (the route table, request schemas and bodies), Logins (code, provider-token and id_token logins), Sessions
// (opening, signing, refresh rotation, the bearer check, the revocation view, logout and revocation), Provider (every
// provider is a `CodeLoginProvider`: Facebook's code login and Graph calls with appsecret_proof, OpenID Connect
// issuers' code logins, the token keepers that keep and revoke Apple's and Google's tokens), Storage (sql-kit over
// SQLite or PostgreSQL), Callbacks (signed_request), Operations (request ids, errors, rate limits, metrics, OpenAPI)
// and Background (the provider-token validity check).
// No client module may depend on this one: the app secret lives here and nowhere else.
