/// "Did you mean …?" for a misspelt name: a command-line tool's command (`mend grpah` → `graph`) or a configuration
/// variable (`MEND_PROT` → `MEND_PORT`). One edit distance for every such suggestion.
package enum NameSuggestion {
    /// The Levenshtein distance of two names, over their UTF-8 bytes.
    package static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first.utf8), b = Array(second.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The candidate nearest to `name` when it is near enough to be what was meant: within `maximumDistance` edits,
    /// by default 1 for names of up to four characters and 2 for longer ones (`grpah` → `graph`, `logn` → `login`);
    /// the first of equally near ones, in `candidates`' order.
    package static func closest(
        to name: String, among candidates: some Sequence<String>, maximumDistance: Int? = nil
    ) -> String? {
        let bound = maximumDistance ?? (name.count <= 4 ? 1 : 2)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance <= bound, best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.name
    }

    /// A command-line tool's commands, by name: what ``misspeltCommand(in:tree:)`` walks.
    package struct CommandTree: Sendable {
        /// The command's name and aliases.
        package var names: [String]
        /// Its subcommands.
        package var subcommands: [CommandTree]
        /// Whether a word that is not a subcommand goes to a default subcommand (as an argument of `serve`).
        package var hasDefaultSubcommand: Bool
        /// Whether the command is left out of help (a test's helper): it is run, never suggested.
        package var isHidden: Bool

        /// A tree node.
        package init(names: [String], subcommands: [CommandTree], hasDefaultSubcommand: Bool, isHidden: Bool = false) {
            self.names = names
            self.subcommands = subcommands
            self.hasDefaultSubcommand = hasDefaultSubcommand
            self.isHidden = isHidden
        }
    }

    /// A word of the command line that stands where a command's name does and names none.
    package struct Misspelling: Sendable, Equatable {
        /// The word (`grpah`).
        package var word: String
        /// The commands before it (`["mend", "token"]`).
        package var path: [String]
        /// The nearest command's name, when one is near.
        package var suggestion: String?
        /// The commands that would have been valid there.
        package var commands: [String]

        /// What the tool says (then exits with 64, a usage error): `Error: 'grpah' is not a mend command. Did you
        /// mean 'graph'?`, and where the commands are listed.
        package var message: String {
            let command = path.joined(separator: " ")
            let guess =
                suggestion.map { " Did you mean '\($0)'?" } ?? " The commands: \(commands.joined(separator: ", "))."
            return "Error: '\(word)' is not a \(command) command.\(guess)\nSee '\(command) --help'."
        }
    }

    /// The first word of `arguments` (the tool's name left out) that stands where a subcommand's name goes and is
    /// none: words are read until the first option (`-…`) or a command without subcommands. Under a command with a
    /// default subcommand, a word is taken as a misspelling only when a subcommand's name is near it (else it is the
    /// default's argument).
    package static func misspeltCommand(in arguments: [String], tree: CommandTree) -> Misspelling? {
        var node = tree
        var path = [tree.names.first ?? ""]
        for word in arguments {
            guard !word.hasPrefix("-"), !node.subcommands.isEmpty else { return nil }
            if let next = node.subcommands.first(where: { $0.names.contains(word) }) {
                node = next
                path.append(word)
                continue
            }
            if path.count == 1 && word == "help" { return nil }
            let names = node.subcommands.filter { !$0.isHidden }.compactMap(\.names.first)
            let suggestion = closest(to: word, among: names)
            if node.hasDefaultSubcommand && suggestion == nil { return nil }
            return Misspelling(word: word, path: path, suggestion: suggestion, commands: names)
        }
        return nil
    }
}
