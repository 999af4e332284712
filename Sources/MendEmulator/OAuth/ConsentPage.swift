/// The HTML of the login dialog: the consent page and the error page, and the page shell every emulator page shares.
/// Pure functions of their inputs.
enum ConsentPage {
    struct Permission {
        var name: String
        var isRequired: Bool
        var wasDeclined: Bool
        var alreadyGranted: Bool
    }

    static func render(
        dialogID: String, app: EmulatedApp, users: [TestUser], selectedUserID: String, permissions: [Permission],
        action: String
    ) -> String {
        let selected = users.first { $0.id == selectedUserID } ?? users[0]
        var rows = ""
        for permission in permissions {
            let id = "scope-\(escape(permission.name))"
            if permission.isRequired {
                rows += """
                    <li><label for="\(id)"><input type="checkbox" id="\(id)" checked disabled> \
                    <code>\(escape(permission.name))</code> <small>(always granted)</small></label>\
                    <input type="hidden" name="scope_\(escape(permission.name))" value="1"></li>

                    """
            } else if permission.wasDeclined {
                rows += """
                    <li class="declined"><code>\(escape(permission.name))</code> \
                    <small>(declined before; ask again with auth_type=rerequest)</small></li>

                    """
            } else {
                let note = permission.alreadyGranted ? " <small>(granted before)</small>" : ""
                rows += """
                    <li><label for="\(id)"><input type="checkbox" id="\(id)" name="scope_\(escape(permission.name))" \
                    value="1" checked> <code>\(escape(permission.name))</code>\(note)</label></li>

                    """
            }
        }
        let options = users.map { user in
            let isSelected = user.id == selected.id ? " selected" : ""
            return "<option value=\"\(escape(user.id))\"\(isSelected)>\(escape(user.name))"
                + (user.email.map { " &lt;\(escape($0))&gt;" } ?? "") + "</option>"
        }.joined(separator: "\n")
        let content = """
            <h1>\(escape(app.name)) is requesting access</h1>
            <p id="who">You are logging in as <strong id="user-name">\(escape(selected.name))</strong>\
            \(selected.email.map { " (<span id=\"user-email\">\(escape($0))</span>)" } ?? "").</p>
            <form id="consent-form" method="post" action="\(escape(action))">
            <input type="hidden" name="dialog_id" value="\(escape(dialogID))">
            <p><label for="user-select">Continue as</label>
            <select id="user-select" name="user_id">
            \(options)
            </select></p>
            <fieldset>
            <legend>\(escape(app.name)) will receive:</legend>
            <ul id="permissions">
            \(rows)</ul>
            </fieldset>
            <p class="actions">
            <button type="submit" id="cancel" name="decision" value="cancel">Cancel</button>
            <button type="submit" id="continue" name="decision" value="continue">Continue</button>
            </p>
            </form>

            """
        return document(title: "Log in to \(escape(app.name))", viewport: true, content: content)
    }

    /// The answer the consent page's form sent: the scopes checked (`scope_<name>`), or `nil` for Cancel.
    static func chosenScopes(_ form: [String: String]) -> Set<String>? {
        form["decision"] == "cancel"
            ? nil : Set(form.keys.filter { $0.hasPrefix("scope_") }.map { String($0.dropFirst(6)) })
    }

    static func error(title: String, message: String) -> String {
        document(
            title: escape(title), viewport: false,
            content: """
                <h1 id="error-title">\(escape(title))</h1>
                <p id="error-message">\(escape(message))</p>

                """)
    }

    /// An emulator page around `content` (lines after the brand, each ending with a line break), with the shared
    /// style; `viewport` adds the viewport meta tag. `title` is HTML already.
    static func document(title: String, viewport: Bool, content: String) -> String {
        let meta = viewport ? #"<meta name="viewport" content="width=device-width, initial-scale=1">"# + "\n" : ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            \(meta)<title>\(title)</title>
            <style>\(style)</style>
            </head>
            <body>
            <main>
            <p class="brand">Mend provider emulator</p>
            \(content)</main>
            </body>
            </html>

            """
    }

    static let style = """
        body{font-family:system-ui,sans-serif;background:#f0f2f5;margin:0}
        main{max-width:32rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;\
        box-shadow:0 1px 4px rgba(0,0,0,.2)}
        .brand{color:#1877f2;font-weight:bold}ul{list-style:none;padding:0}li{margin:.4rem 0}
        .declined{color:#888}.actions{display:flex;gap:1rem;justify-content:flex-end}
        button{font-size:1rem;padding:.5rem 1.2rem;border-radius:6px;border:1px solid #ccd0d5}
        #continue{background:#1877f2;color:#fff;border-color:#1877f2}
        """

    /// Escapes text for HTML content and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
