// Types that moved out of MendTesting, re-exported so that tests importing MendTesting keep finding them where
// they were.
@_exported public import struct MendServer.RunningMendServer
