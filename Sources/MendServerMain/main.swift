// `mend-server`: runs the MendServer application, configured from the environment or a file.
import Foundation
import MendServer

let message = "mend-server: the login backend is not part of this build yet; run `mend emulate` or `mend demo`.\n"
FileHandle.standardError.write(Data(message.utf8))
exit(2)
