// `mend-server`: the login backend's executable, a thin entry point; the commands are in MendServerCommands.
#if Server
    import MendServerCommands

    await MendServerTool.runFromCommandLine()
#else
    // Built without Mend's Server trait (which keeps the server side out of apps that add Mend): no commands. Say
    // how to build it with them rather than fail.
    import Foundation

    let arguments = CommandLine.arguments.dropFirst().map { $0.contains(" ") ? "'\($0)'" : $0 }
    FileHandle.standardError.write(
        Data(
            """
            mend-server: this build has no commands: mend-server and its dependencies are behind Mend's "Server" \
            package trait. Run:
              swift run --traits Server \((["mend-server"] + arguments).joined(separator: " "))

            """.utf8))
    exit(78)
#endif
