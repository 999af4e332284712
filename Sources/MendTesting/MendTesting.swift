// MendTesting: test support for apps and for Mend's own tests (an in-memory transport, an emulator harness, log
// capture). Laid down with the package to fix the module layout; its contents arrive with the transport seam.
