// MendServer: the login backend (`mend-server`), a Hummingbird 2 application built by a function.
//
// Laid down with the package to fix the module layout: it may depend on MendCore, MendHTTP and MendGraphAPI and on
// server libraries; no client module may depend on it. The application arrives with the server's own work; until
// then the module exports nothing.
