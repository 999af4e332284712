// The dependencies of MendTelemetry are named under Mend's "Telemetry" package trait, which keeps them
// out of an app that does not enable it (Package.swift says why). Without it, this is the error to read.
#if !Telemetry
    #error("MendTelemetry needs a trait of Mend: .package(url: …, traits: [\"Telemetry\"])")
#endif
