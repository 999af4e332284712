// Every module of Mend's "Server" tier depends on this one, which has nothing else: without the trait it stops the
// build first, with this one error, before a module of the tier fails on a dependency the trait brings
// (`no such module …`, which names no trait).
#if !Server
    #error(
        "This part of Mend needs its \"Server\" package trait: .package(url: …, from: …, traits: [\"Server\"]) in an app's Package.swift, or swift build --traits Server in a clone of Mend"
    )
#endif
