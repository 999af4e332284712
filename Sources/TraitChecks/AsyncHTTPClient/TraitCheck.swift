// Every module of Mend's "AsyncHTTPClient" tier depends on this one, which has nothing else: without the trait it stops the
// build first, with this one error, before a module of the tier fails on a dependency the trait brings
// (`no such module …`, which names no trait).
#if !AsyncHTTPClient
    #error(
        "This part of Mend needs its \"AsyncHTTPClient\" package trait: .package(url: …, from: …, traits: [\"AsyncHTTPClient\"]) in an app's Package.swift, or swift build --traits AsyncHTTPClient in a clone of Mend"
    )
#endif
