import Foundation
import SQLKit

/// The admin API's search over users and their identities.
struct SQLUserDirectory: UserDirectory, SQLStore {
    let connection: StoreConnection

    // MARK: The admin API's reads

    /// The users `query` finds — a user id, a provider's subject (the Facebook id or any identity's), or part of an
    /// e-mail address (the profile's or an identity's, in any case) — or every user without one; newest first.
    func searchUsers(query: String?, limit: Int, offset: Int) async throws -> [UserRecord] {
        let page = "ORDER BY u.created_at DESC, u.id LIMIT \(max(1, min(limit, 200))) OFFSET \(max(0, offset))"
        guard let query else {
            return try await sql.raw("SELECT \(unsafeRaw: UserRecord.columns) FROM mend_users u \(unsafeRaw: page)")
                .all().map(UserRecord.init(row:))
        }
        // LIKE's wildcards in the query are plain characters.
        let pattern =
            "%"
            + query.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        return try await sql.raw(
            """
            SELECT \(unsafeRaw: UserRecord.columns) FROM mend_users u
            WHERE u.id = \(bind: query) OR u.provider_user_id = \(bind: query)
                OR LOWER(u.email) LIKE \(bind: pattern) ESCAPE '\\'
                OR EXISTS (SELECT 1 FROM mend_identities i WHERE i.user_id = u.id
                    AND (i.subject = \(bind: query) OR LOWER(i.email) LIKE \(bind: pattern) ESCAPE '\\'))
            \(unsafeRaw: page)
            """
        ).all().map(UserRecord.init(row:))
    }
}
