/// Finds which operation a GraphQL document runs, and its kind, from the document's definitions.
///
/// A small lexer (names, punctuators, strings, block strings, comments; GraphQL's October 2021 spec, §2.1) and a
/// scan of the top-level definitions: `{ … }` (a query's shorthand), `query`/`mutation`/`subscription` definitions
/// with their names, and `fragment` definitions, which are skipped. The operation is the one `operationName` names, or
/// the only one. The answer is `nil` whenever the document does not say for certain (a syntax error, an unknown or
/// type-system definition, several operations and no name, a name that matches none): the caller then treats the
/// operation as a write.
enum GraphQLDocumentScanner {
    /// One top-level operation definition.
    struct Operation: Equatable {
        var kind: GraphQLOperation.Kind
        var name: String?
    }

    /// The kind of the operation the document runs, or `nil` when that is not certain.
    static func kind(of text: String, operationName: String?) -> GraphQLOperation.Kind? {
        operation(in: text, operationName: operationName)?.kind
    }

    /// The operation the document runs (its kind and name), or `nil` when that is not certain.
    static func operation(in text: String, operationName: String?) -> Operation? {
        guard let operations = operations(in: text) else { return nil }
        if let operationName {
            let named = operations.filter { $0.name == operationName }
            return named.count == 1 ? named[0] : nil
        }
        return operations.count == 1 ? operations[0] : nil
    }

    /// The document's operation definitions in order, or `nil` when the document is not a well-formed executable
    /// document as far as this scan can tell.
    static func operations(in text: String) -> [Operation]? {
        var lexer = Lexer(Array(text.utf8))
        var operations: [Operation] = []
        var depth = 0
        var atDefinitionStart = true
        /// After `query`/`mutation`/`subscription`: the next token may be the operation's name.
        var namingOperation = false
        while true {
            guard let token = lexer.next() else { return nil }  // a lexical error
            if case .end = token { break }
            if namingOperation {
                namingOperation = false
                if case .name(let name) = token {
                    operations[operations.count - 1].name = name
                    continue
                }
            }
            if atDefinitionStart {
                guard depth == 0 else { return nil }
                switch token {
                case .punctuator(UInt8(ascii: "{")):
                    operations.append(Operation(kind: .query, name: nil))
                    depth = 1
                case .name("query"):
                    operations.append(Operation(kind: .query, name: nil))
                    namingOperation = true
                case .name("mutation"):
                    operations.append(Operation(kind: .mutation, name: nil))
                    namingOperation = true
                case .name("subscription"):
                    operations.append(Operation(kind: .subscription, name: nil))
                    namingOperation = true
                case .name("fragment"):
                    break
                default:
                    return nil  // a type-system definition, or not GraphQL
                }
                atDefinitionStart = false
                continue
            }
            switch token {
            case .punctuator(UInt8(ascii: "{")), .punctuator(UInt8(ascii: "(")), .punctuator(UInt8(ascii: "[")):
                depth += 1
            case .punctuator(let closing)
            where closing == UInt8(ascii: "}") || closing == UInt8(ascii: ")") || closing == UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else { return nil }
                if depth == 0, closing == UInt8(ascii: "}") { atDefinitionStart = true }
            default:
                break
            }
        }
        guard depth == 0, atDefinitionStart, !operations.isEmpty else { return nil }
        return operations
    }

    enum Token: Equatable {
        case name(String)
        case punctuator(UInt8)
        /// A string, number or `...`: nothing the scan needs to look into.
        case other
        case end
    }

    /// GraphQL's lexical grammar, enough to never mistake a string's or comment's content for structure.
    struct Lexer {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next token, `.end` at the end, or `nil` on a lexical error (an unterminated string, a stray byte).
        mutating func next() -> Token? {
            skipIgnored()
            guard index < bytes.count else { return .end }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: ":"),
                UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "|"):
                index += 1
                return .punctuator(byte)
            case UInt8(ascii: "."):
                guard index + 2 < bytes.count, bytes[index + 1] == byte, bytes[index + 2] == byte else { return nil }
                index += 3
                return .other
            case UInt8(ascii: "\""):
                return skipString() ? .other : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                index += 1
                while index < bytes.count, Self.isNumberPart(bytes[index]) { index += 1 }
                return .other
            default:
                guard Self.isNameStart(byte) else { return nil }
                let start = index
                while index < bytes.count, Self.isNameStart(bytes[index]) || Self.isDigit(bytes[index]) {
                    index += 1
                }
                return .name(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        /// Whitespace, line terminators, commas, the byte order mark and comments.
        private mutating func skipIgnored() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","):
                    index += 1
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF:
                    index += 3
                case UInt8(ascii: "#"):
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                        index += 1
                    }
                default:
                    return
                }
            }
        }

        /// Skips a string or block string starting at `index`; `false` when it does not end.
        private mutating func skipString() -> Bool {
            if hasPrefix("\"\"\"") {
                index += 3
                while index < bytes.count {
                    if hasPrefix("\\\"\"\"") {
                        index += 4
                    } else if hasPrefix("\"\"\"") {
                        index += 3
                        return true
                    } else {
                        index += 1
                    }
                }
                return false
            }
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return false
                default: index += 1
                }
            }
            return false
        }

        private func hasPrefix(_ text: String) -> Bool {
            let prefix = Array(text.utf8)
            guard index + prefix.count <= bytes.count else { return false }
            return bytes[index..<(index + prefix.count)].elementsEqual(prefix)
        }

        private static func isNameStart(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
        }

        private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        private static func isNumberPart(_ byte: UInt8) -> Bool {
            isDigit(byte) || isNameStart(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
        }
    }
}
