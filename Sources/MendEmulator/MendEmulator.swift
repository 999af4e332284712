// MendEmulator: the Facebook-compatible provider emulator (a Hummingbird 2 application built by a function).
//
// This target is laid down with the package so that the module layout and the dependency direction are fixed:
// it may depend on MendCore (it reads the error catalog for fault injection) and on server libraries, and no
// client module may depend on it. Its application arrives with the emulator's own work; until then the module
// exports nothing.
