/// The single source of truth for every error Mend knows: domain, code, subcode, name, category, recovery and
/// user-message key.
///
/// A catalog is made of ``ErrorSpace``s, each declared by the module that decodes its errors. Classification,
/// localization, `mend errors list`, the documentation page and the emulator's fault injection all read it. A
/// client's configuration holds the catalog it classifies with (there is no hidden global default); a provider's
/// error configuration can be merged over its Graph rows with `merging(providerConfiguration:)`.
///
/// Lookup order within a domain, as the vendor SDK does it: (code, subcode) → (code, any) → (any, subcode) →
/// (any, any). An exact code beats a code range. For the ``MendError/Domain/http`` domain, a status with no entry
/// of its own falls back to its class (a 418 is classified as 400, a 520 as 500).
public struct ErrorCatalog: Sendable {
    /// Every entry, in display order.
    package private(set) var entries: [Entry]
    /// Recovery text supplied by a provider's error configuration, keyed like the entries.
    private var serverRecovery: [EntryKey: MendError.ServerRecoveryText]
    private var index: [EntryKey: Int]
    /// The rows that match by a phrase of the provider's message, looked up first (few: a handful of codes).
    private var phraseRows: [Entry] = []

    /// Creates a catalog from entries. A later entry with the same key as an earlier one replaces it.
    package init(entries: [Entry]) {
        self.entries = []
        self.serverRecovery = [:]
        self.index = [:]
        for entry in entries { upsert(entry) }
    }

    /// Creates a catalog from error spaces, in order.
    public init(spaces: [ErrorSpace]) {
        self.init(entries: spaces.flatMap(\.entries))
    }

    /// This catalog with `space`'s rows added (a row with the same key replaces the catalog's).
    public func adding(_ space: ErrorSpace) -> ErrorCatalog {
        var catalog = self
        for entry in space.entries { catalog.upsert(entry) }
        return catalog
    }

    /// The domains the catalog has rows for, in display order.
    package var domains: [MendError.Domain] {
        var seen: [MendError.Domain] = []
        for entry in entries where !seen.contains(entry.domain) { seen.append(entry.domain) }
        return seen
    }

    /// The entry that classifies `code` and `subcode`, following the lookup order; with the provider's `message`, a
    /// row whose phrase it contains comes first (``Entry/messagePhrase``).
    ///
    /// Every code gets an entry: when nothing in its domain matches, a generic `other` entry is returned.
    package func entry(code: MendError.Code, subcode: MendError.Subcode? = nil, message: String? = nil) -> Entry {
        if let message, !phraseRows.isEmpty, let found = phraseRow(code: code, subcode: subcode, message: message) {
            return withServerRecovery(found, code: code, subcode: subcode)
        }
        if code.domain == .http, (400..<600).contains(code.rawValue) {
            // A status's own row, else its class's row, before the domain's catch-all.
            let statusClass = code.rawValue / 100 * 100
            for status in [code.rawValue, statusClass] {
                if let found = lookup(domain: .http, code: status, subcode: subcode?.rawValue, anyCode: false) {
                    return withServerRecovery(found, code: code, subcode: subcode)
                }
            }
        }
        if let found = lookup(domain: code.domain, code: code.rawValue, subcode: subcode?.rawValue) {
            return withServerRecovery(found, code: code, subcode: subcode)
        }
        return Entry.unknown(in: code.domain)
    }

    /// `row` with the provider's recovery text for `code`/`subcode` when the row has none of its own.
    private func withServerRecovery(_ row: Entry, code: MendError.Code, subcode: MendError.Subcode?) -> Entry {
        guard row.providerRecovery == nil, let text = serverRecoveryText(code: code, subcode: subcode) else {
            return row
        }
        return row.withProviderRecovery(text)
    }

    /// The entry of `domain` whose wire name is `wireName` (GraphQL's `extensions.code`), if any.
    package func entry(in domain: MendError.Domain, wireName: String) -> Entry? {
        entries.first { $0.domain == domain && $0.wireName == wireName }
    }

    /// The entries of one domain, in display order.
    package func entries(in domain: MendError.Domain) -> [Entry] {
        entries.filter { $0.domain == domain }
    }

    /// Recovery text that a merged provider configuration supplied for this code, following the lookup order.
    package func serverRecoveryText(code: MendError.Code, subcode: MendError.Subcode?) -> MendError.ServerRecoveryText?
    {
        guard !serverRecovery.isEmpty else { return nil }
        for key in EntryKey.lookupOrder(domain: code.domain, code: code.rawValue, subcode: subcode?.rawValue) {
            if let text = serverRecovery[key] { return text }
        }
        return nil
    }

    /// Adds `entry`, replacing an entry with the same key.
    package mutating func upsert(_ entry: Entry) {
        let key = entry.key
        if let position = index[key] {
            entries[position] = entry
        } else {
            index[key] = entries.count
            entries.append(entry)
        }
        if entry.messagePhrase != nil {
            phraseRows.removeAll { $0.key == key }
            phraseRows.append(entry)
        }
    }

    /// The row with a phrase that `message` contains, for `code` and `subcode` (a row with the subcode before one
    /// for any subcode).
    private func phraseRow(code: MendError.Code, subcode: MendError.Subcode?, message: String) -> Entry? {
        let candidates = phraseRows.filter { row in
            row.domain == code.domain && row.codes.map { $0.contains(code.rawValue) } != false
                && (row.subcode == nil || row.subcode == subcode?.rawValue)
        }
        guard !candidates.isEmpty else { return nil }
        let ordered = candidates.filter { $0.subcode != nil } + candidates.filter { $0.subcode == nil }
        return ordered.first { $0.phraseOccurs(in: message) }
    }

    /// Sets the provider's recovery text for `entry`'s key (a merged provider configuration).
    package mutating func setServerRecovery(_ text: MendError.ServerRecoveryText?, for entry: Entry) {
        serverRecovery[entry.key] = text
    }

    private func lookup(domain: MendError.Domain, code: Int, subcode: Int?, anyCode: Bool = true) -> Entry? {
        // (code, subcode) → (code, any) → (any, subcode) → (any, any); at each code level an exact code
        // beats a range that contains it.
        for key in EntryKey.lookupOrder(domain: domain, code: code, subcode: subcode) where anyCode || key.codes != nil
        {
            if let position = index[key] { return entries[position] }
            if key.codes != nil, let ranged = rangedEntry(domain: domain, code: code, subcode: key.subcode) {
                return ranged
            }
        }
        return nil
    }

    private func rangedEntry(domain: MendError.Domain, code: Int, subcode: Int?) -> Entry? {
        entries.first { entry in
            entry.domain == domain && entry.subcode == subcode
                && entry.codes.map { $0.count > 1 && $0.contains(code) } == true
        }
    }
}

extension ErrorCatalog {
    /// A legitimate override of a row's classification by the server that answered. An error's category, recovery
    /// action and retry permission come from its row, or from its row with one of these applied
    /// (``Entry/overridden(by:)``), never from fields set one by one.
    package indirect enum Override: Sendable, Hashable, Codable {
        /// The provider flagged the error `is_transient: true`: transient and retried automatically, with the
        /// recovery `retry` (a rate limit keeps waiting for its reset; a request the provider asked to make smaller,
        /// ``MendError/Recovery-swift.struct/Action/reduceRequestSize``, keeps its row: the same request fails again).
        case providerTransient
        /// Mend's own serialized form stated the category and recovery: the wire shape a Mend service
        /// (`mend-server`) answers with, since it saw the upstream failure, or a bridged `NSError`'s `userInfo`.
        /// Its `transient` is retried unless the row forbids automatic retries.
        case mendWire(category: MendError.Category, recovery: MendError.Recovery.Action)
        /// What the server found is a security event that the row does not imply (a valid token issued for another
        /// app: a substituted token): the user text stays generic.
        case securityEvent
        /// A response that carried several errors takes the classification of its most actionable one (GraphQL);
        /// with partial data, its message says so.
        case mostActionable(Entry, hasPartialData: Bool)
    }
}

/// The key that identifies an entry: domain, code range (nil = any), subcode (nil = any) and message phrase (nil for
/// the rows that match by code alone).
struct EntryKey: Hashable, Sendable {
    var domain: MendError.Domain
    var codes: ClosedRange<Int>?
    var subcode: Int?
    var messagePhrase: String? = nil

    static func lookupOrder(domain: MendError.Domain, code: Int, subcode: Int?) -> [EntryKey] {
        var keys: [EntryKey] = []
        if let subcode { keys.append(EntryKey(domain: domain, codes: code...code, subcode: subcode)) }
        keys.append(EntryKey(domain: domain, codes: code...code, subcode: nil))
        if let subcode { keys.append(EntryKey(domain: domain, codes: nil, subcode: subcode)) }
        keys.append(EntryKey(domain: domain, codes: nil, subcode: nil))
        return keys
    }
}
