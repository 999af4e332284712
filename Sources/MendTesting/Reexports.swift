// The client test kit (the in-memory transport, the loopback server, log capture, test clocks), so that a test
// importing MendTesting finds them as before.
@_exported public import MendClientTesting

// Types that moved out of MendTesting so that the shipping `mend` executable does not link it, re-exported so that
// tests importing MendTesting keep finding them where they were.
@_exported public import struct MendEmulator.HeadlessConsentBrowser
@_exported public import struct MendServer.RunningMendServer
