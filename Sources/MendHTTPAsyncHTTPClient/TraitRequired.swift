// The dependencies of MendHTTPAsyncHTTPClient are named under Mend's "AsyncHTTPClient" package trait,
// which keeps them out of an app that does not enable it (Package.swift says why).
// Without it, this is the error to read.
#if !AsyncHTTPClient
    #error("MendHTTPAsyncHTTPClient needs a trait of Mend: .package(url: …, traits: [\"AsyncHTTPClient\"])")
#endif
