// MendHTTPAsyncHTTPClient: the AsyncHTTPClient transport for MendHTTP (servers, the CLI, Linux). Laid down with the
// package to fix the module layout; it is the only HTTP module allowed to depend on SwiftNIO. Its transport arrives
// with the transport seam.
