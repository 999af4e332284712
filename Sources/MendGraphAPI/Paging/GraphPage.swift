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
///
/// When the provider asks for less data (an error whose recovery action is `reduceRequestSize`: Graph's code 1
/// "Please reduce the amount of data you're asking for"), the same page is sent again with half the `limit` — starting from
/// ``defaultPageSize`` when the request has none — down to 1; a page of 1 that is still too much throws the error.
/// After ``successesBeforeRestoring`` pages in a row succeed at a reduced size, the size doubles again, up to the
/// `limit` the request asked for (or back to no `limit` at all).
public struct GraphPages<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// Each element is one page.
    public typealias Element = GraphPage<Item>

    /// The page size that halving starts from when the request has no `limit` (Graph's usual page of an edge).
    public static var defaultPageSize: Int { 25 }
    /// How many pages in a row must succeed at a reduced size before it doubles again.
    public static var successesBeforeRestoring: Int { 3 }

    let client: GraphClient
    let request: GraphRequest
    let maximumPages: Int

    /// The iterator: one request per page (and one more each time the provider asks for less).
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: GraphClient
        var request: GraphRequest?
        var remaining: Int
        var size: PageSize

        /// The next page, or `nil` after the last.
        public mutating func next() async throws -> GraphPage<Item>? {
            guard var current = request, remaining > 0 else { return nil }
            remaining -= 1
            let page: GraphPage<Item>
            while true {
                current.parameters["limit"] = size.limitParameter
                do {
                    page = try await client.send(current, as: GraphPage<Item>.self)
                    break
                } catch let error as MendError where error.recovery.action == .reduceRequestSize {
                    guard size.reduce() else { throw error }
                }
            }
            size.succeeded()
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
        AsyncIterator(
            client: client, request: request, remaining: maximumPages,
            size: PageSize(
                requested: request.parameters["limit"], defaultSize: Self.defaultPageSize,
                successesBeforeRestoring: Self.successesBeforeRestoring))
    }
}

/// The `limit` paging sends: the one the request asked for, halved when the provider asks for less and doubled back
/// after successes.
struct PageSize: Sendable, Hashable {
    /// The request's own `limit` text (`nil` without one).
    let requested: String?
    /// The size that the requested `limit` stands for (the default page without one).
    let original: Int
    /// The reduced size, or `nil` while the request is sent as it was asked.
    private(set) var reduced: Int?
    /// Pages in a row that succeeded at the reduced size.
    private(set) var successes = 0
    let successesBeforeRestoring: Int

    init(requested: String?, defaultSize: Int, successesBeforeRestoring: Int) {
        self.requested = requested
        self.original = requested.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? defaultSize
        self.successesBeforeRestoring = max(1, successesBeforeRestoring)
    }

    /// The `limit` parameter to send.
    var limitParameter: String? { reduced.map(String.init) ?? requested }

    /// Halves the size; `false` when it is 1 already.
    mutating func reduce() -> Bool {
        let current = reduced ?? original
        guard current > 1 else { return false }
        reduced = current / 2
        successes = 0
        return true
    }

    /// Counts a page that succeeded, doubling a reduced size after enough of them (up to the original).
    mutating func succeeded() {
        guard let current = reduced else { return }
        successes += 1
        guard successes >= successesBeforeRestoring else { return }
        successes = 0
        reduced = current * 2 >= original ? nil : current * 2
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
    /// A page the provider finds too large is sent again with a smaller `limit`, which grows back after successes
    /// (``GraphPages``).
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
