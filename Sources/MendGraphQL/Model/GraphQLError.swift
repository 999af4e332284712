public import MendCore

/// One entry of a GraphQL response's `errors` list, as the GraphQL specification's "Response" section shapes it.
///
/// Every key the server sent is kept: the known ones as properties, any others in `otherFields`.
public struct GraphQLError: Sendable, Hashable {
    /// A line and column in the operation's text (1-based).
    public struct Location: Sendable, Hashable {
        /// The line, from 1.
        public var line: Int
        /// The column, from 1.
        public var column: Int
        /// Creates a location.
        package init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// One step of a path: a field name or a list index.
    public enum PathSegment: Sendable, Hashable, CustomStringConvertible {
        /// A response key.
        case field(String)
        /// A list index.
        case index(Int)

        /// The key, or the index in brackets.
        public var description: String {
            switch self {
            case .field(let name): name
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// The error's message (for developers; GraphQL servers do not localize it).
    public var message: String
    /// Where in the operation the error arose.
    public var locations: [Location]
    /// The response path of the field that failed (`hero.friends[1].name`), if it was a field error.
    public var path: [PathSegment]?
    /// The `extensions` map, where servers put `code` and more.
    public var extensions: [String: JSONValue]
    /// Every other top-level key of the error object (the specification reserves none, but servers add them).
    package var otherFields: [String: JSONValue]

    /// Creates an error.
    package init(
        message: String, locations: [Location] = [], path: [PathSegment]? = nil,
        extensions: [String: JSONValue] = [:], otherFields: [String: JSONValue] = [:]
    ) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
        self.otherFields = otherFields
    }

    /// Reads an error object; returns `nil` when `json` is not an object with a string `message`.
    package init?(json: JSONValue) {
        guard var members = json.objectValue, let message = members.removeValue(forKey: "message")?.stringValue else {
            return nil
        }
        self.message = message
        self.locations = (members.removeValue(forKey: "locations")?.arrayValue ?? []).compactMap { location in
            guard let line = location["line"]?.intValue, let column = location["column"]?.intValue else { return nil }
            return Location(line: line, column: column)
        }
        self.path = members.removeValue(forKey: "path")?.arrayValue?.compactMap { segment in
            if case .int(let index) = segment { return .index(index) }
            return segment.stringValue.map(PathSegment.field)
        }
        self.extensions = members.removeValue(forKey: "extensions")?.objectValue ?? [:]
        self.otherFields = members
    }

    /// `extensions.code` (or a top-level `code`, as some servers send), if any.
    public var code: String? {
        extensions["code"]?.stringValue ?? otherFields["code"]?.stringValue
    }

    /// The path as text: `hero.friends[1].name`.
    public var pathText: String? {
        guard let path else { return nil }
        var text = ""
        for segment in path {
            switch segment {
            case .field(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
