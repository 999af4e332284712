// MendHTTPURLSession: the URLSession transport for MendHTTP (Apple apps; builds on Linux with
// FoundationNetworking). Laid down with the package to fix the module layout; a client module, so it may use only
// MendHTTP and Foundation. Its transport arrives with the transport seam.
