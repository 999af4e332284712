/// One fuzz target: a name (`MEND_FUZZ_TARGET`, the corpus folder `Fuzz/Corpus/<name>`) and its harness.
public struct FuzzTarget: Sendable {
    /// The target's name.
    public var name: String
    /// Runs the harness on one input; a broken invariant aborts (libFuzzer keeps the input).
    public var run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Every target, in the order `scripts/fuzz` runs them.
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "redirect", run: RedirectHarness.run),
        FuzzTarget(name: "loopback-request", run: LoopbackRequestHarness.run),
        FuzzTarget(name: "error-decoders", run: ErrorDecodersHarness.run),
        FuzzTarget(name: "graphql-response", run: GraphQLResponseHarness.run),
        FuzzTarget(name: "id-token", run: IDTokenHarness.run),
        FuzzTarget(name: "signed-request", run: SignedRequestHarness.run),
        FuzzTarget(name: "retry-after", run: RetryAfterHarness.run),
        FuzzTarget(name: "usage-headers", run: UsageHeadersHarness.run),
        FuzzTarget(name: "har-redaction", run: HARRedactionHarness.run),
        FuzzTarget(name: "jws", run: JWSHarness.run),
        FuzzTarget(name: "json", run: JSONHarness.run),
        FuzzTarget(name: "cbor", run: CBORHarness.run),
        FuzzTarget(name: "attestation", run: AttestationHarness.run),
    ]
}
