// The dependencies of MendServing are named under Mend's "Server" package trait, which keeps them
// out of an app that does not enable it (Package.swift says why). Without it, this is the error to read.
#if !Server
    #error("MendServing needs a trait of Mend: .package(url: …, traits: [\"Server\"])")
#endif
