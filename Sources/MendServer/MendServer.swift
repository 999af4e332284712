// MendServer: the login backend (`mend-server`), a Hummingbird 2 application built by a function.
//
// Entry points: `buildApplication(configuration:)` (open the database, run migrations, build the app),
// `LoginBackend` (the state behind the routes, for tests and tools) and its `withRunningServer`/`runUntilSignalled`
// (the run loop every Mend server shares, from MendServing). Folders by concern: Configuration, Application,
// Routes, Sessions (signing, refresh rotation), Provider (the Graph API with appsecret_proof), Storage (sql-kit over
// SQLite or PostgreSQL), Callbacks (signed_request), Operations (request ids, errors, rate limits, metrics, OpenAPI)
// and Background (the provider-token validity check). No client module may depend on this one: the app secret lives
// here and nowhere else.
