// The `mend` executable: a thin entry point; the commands live in MendCommands.
#if Server
    import MendCommands

    await MendCommand.runFromCommandLine()
#else
    // Built without Mend's Server trait (which keeps the tools' dependencies out of apps that add Mend): no commands.
    // Say how to build it with them rather than fail.
    import Foundation

    let arguments = CommandLine.arguments.dropFirst().map { $0.contains(" ") ? "'\($0)'" : $0 }
    FileHandle.standardError.write(
        Data(
            """
            mend: this build has no commands: the mend tool and its dependencies are behind Mend's "Server" package \
            trait. Run:
              swift run --traits Server \((["mend"] + arguments).joined(separator: " "))

            """.utf8))
    exit(78)
#endif
