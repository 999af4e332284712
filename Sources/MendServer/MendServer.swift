// MendServer: the login backend (`mend-server`), a Hummingbird 2 application built by a function.
//
// Entry points: `buildApplication(configuration:)` (open the database, run migrations, build the app),
// `LoginBackend` (the state behind the routes, for tests and tools) and its `withRunningServer`/`runUntilSignalled`
// (the run loop every Mend server shares, from MendServing). `LoginBackend` assembles its parts — `SessionAuthority`
// (sessions), `ProviderLogins` (logins), `Accounts` (profile, activity, deletion, logout's permission revocation),
// `ProviderCallbacks`, `Housekeeping` (the validity check, the purge) and `Administration` — each holding the stores it
// uses by their protocols (`StoreConcerns.swift`: sessions, identities, codes, audit, rate limits, the user
// directory), its slice of the configuration, and the `BackendServices` every part is lent (clock, metrics,
// redactor, audit log, rate limits); no part holds the whole store or configuration (ServerShapeTests). Folders by
// concern: Configuration (the five groups, the environment, id_token issuers, keys), Application (building and
// running it, `LoginBackend`, the services, the accounts), Routes
// (the route table, request schemas and bodies), Logins (code, provider-token and id_token logins), Sessions
// (opening, signing, refresh rotation, the bearer check, the revocation view, logout and revocation), Provider (every
// provider is a `CodeLoginProvider`: Facebook's code login and Graph calls with appsecret_proof, OpenID Connect
// issuers' code logins, the token keepers that keep and revoke Apple's and Google's tokens), Storage (sql-kit over
// SQLite or PostgreSQL), Callbacks (signed_request), Operations (request ids, errors, rate limits, metrics, OpenAPI)
// and Background (the provider-token validity check).
// No client module may depend on this one: the app secret lives here and nowhere else.
