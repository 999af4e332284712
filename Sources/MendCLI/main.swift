// The `mend` executable: a thin entry point; the commands live in MendCommands.
import MendCommands

await MendCommand.runFromCommandLine()
