public import MendCore

/// One page of a Graph edge (`/me/friends`, `/me/feed`): its items and its cursors.
public struct GraphPage<Item: Decodable & Sendable>: Sendable, Decodable {
    /// The page's items.
    public var items: [Item]
    /// The cursor before the first item.
    public var before: String?
    /// The cursor after the last item.
    public var after: String?
    /// Whether the provider says there is a next page (it sends a `next` URL).
    public var hasNext: Bool
    /// Whether the provider says there is a previous page.
    public var hasPrevious: Bool

    enum CodingKeys: String, CodingKey { case data, paging }
    enum PagingKeys: String, CodingKey { case cursors, next, previous }
    enum CursorKeys: String, CodingKey { case before, after }

    /// Decodes the provider's `{"data": […], "paging": {"cursors": {…}, "next": …, "previous": …}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decodeIfPresent([Item].self, forKey: .data) ?? []
        guard container.contains(.paging), !(try container.decodeNil(forKey: .paging)) else {
            before = nil
            after = nil
            hasNext = false
            hasPrevious = false
            return
        }
        let paging = try container.nestedContainer(keyedBy: PagingKeys.self, forKey: .paging)
        hasNext = (try paging.decodeIfPresent(String.self, forKey: .next)) != nil
        hasPrevious = (try paging.decodeIfPresent(String.self, forKey: .previous)) != nil
        if paging.contains(.cursors) {
            let cursors = try paging.nestedContainer(keyedBy: CursorKeys.self, forKey: .cursors)
            before = try cursors.decodeIfPresent(String.self, forKey: .before)
            after = try cursors.decodeIfPresent(String.self, forKey: .after)
        } else {
            before = nil
            after = nil
        }
    }
}

/// The pages of an edge, fetched one by one as they are iterated, following the `after` cursor.
///
/// The cursor, not the `next` URL, drives paging: a `next` URL is the server's text (it may point anywhere and
/// carries the token), a cursor is only a value. Iteration stops when the provider sends no `next`.
public struct GraphPages<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// Each element is one page.
    public typealias Element = GraphPage<Item>

    let client: GraphClient
    let request: GraphRequest
    let maximumPages: Int

    /// The iterator: one request per page.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: GraphClient
        var request: GraphRequest?
        var remaining: Int

        /// The next page, or `nil` after the last.
        public mutating func next() async throws -> GraphPage<Item>? {
            guard var current = request, remaining > 0 else { return nil }
            remaining -= 1
            let page = try await client.send(current, as: GraphPage<Item>.self)
            if page.hasNext, let after = page.after, after != current.parameters["after"] {
                current.parameters["after"] = after
                current.parameters["before"] = nil
                request = current
            } else {
                request = nil
            }
            return page
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, request: request, remaining: maximumPages)
    }
}

/// The items of an edge across all its pages.
public struct GraphItems<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// Each element is one item.
    public typealias Element = Item

    let pages: GraphPages<Item>

    /// The iterator: fetches a page when the previous one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: GraphPages<Item>.AsyncIterator
        var buffer: [Item] = []
        var position = 0

        /// The next item, or `nil` after the last page's last item.
        public mutating func next() async throws -> Item? {
            while position >= buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.items
                position = 0
            }
            defer { position += 1 }
            return buffer[position]
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: pages.makeAsyncIterator()) }
}

extension GraphClient {
    /// The pages of the edge that `request` reads (`GraphRequest(path: "me/friends", parameters: ["limit": "25"])`).
    ///
    /// - Parameters:
    ///   - request: The edge's first page.
    ///   - type: The type of the edge's items.
    ///   - maximumPages: A bound on the pages fetched, so that a server that never ends cannot loop.
    public func pages<Item: Decodable & Sendable>(
        _ request: GraphRequest, of type: Item.Type, maximumPages: Int = 10_000
    ) -> GraphPages<Item> {
        GraphPages(client: self, request: request, maximumPages: maximumPages)
    }

    /// The items of the edge that `request` reads, across all pages.
    ///
    /// - Parameters:
    ///   - request: The edge's first page.
    ///   - type: The type of the edge's items.
    ///   - maximumPages: A bound on the pages fetched.
    public func items<Item: Decodable & Sendable>(
        _ request: GraphRequest, of type: Item.Type, maximumPages: Int = 10_000
    ) -> GraphItems<Item> {
        GraphItems(pages: pages(request, of: type, maximumPages: maximumPages))
    }
}
