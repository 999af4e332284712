// MendLogin: OAuth 2.0 / OpenID Connect login without a vendor SDK (PKCE, state, nonce, redirect parsing, token
// stores, a credentials manager). Laid down with the package to fix the module layout; a client module, so it may
// use only MendHTTP, MendCore, swift-http-types, swift-log and swift-crypto.
