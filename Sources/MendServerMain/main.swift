// `mend-server`: the login backend's executable, a thin entry point; the commands are in this folder
// (MendServerCommand.swift and one file per subcommand).
import ArgumentParser

await MendServerCommand.runFromCommandLine()
