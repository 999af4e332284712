// Every module of Mend's "Telemetry" tier depends on this one, which has nothing else: without the trait it stops the
// build first, with this one error, before a module of the tier fails on a dependency the trait brings
// (`no such module …`, which names no trait).
#if !Telemetry
    #error(
        "This part of Mend needs its \"Telemetry\" package trait: .package(url: …, from: …, traits: [\"Telemetry\"]) in an app's Package.swift, or swift build --traits Telemetry in a clone of Mend"
    )
#endif
