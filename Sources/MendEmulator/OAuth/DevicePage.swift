/// The device page's HTML: the form for the code, and the page after the answer.
enum DevicePage {
    static func enterCode(error: String?) -> String {
        let message = error.map { "<p id=\"error-message\" class=\"declined\">\(ConsentPage.escape($0))</p>\n" } ?? ""
        return ConsentPage.document(
            title: "Connect a device", viewport: true,
            content: """
                <h1>Connect a device</h1>
                \(message)<form id="device-form" method="get" action="/device">
                <p><label for="user-code">Enter the code shown on your device</label>
                <input id="user-code" name="user_code" autocomplete="off" autocapitalize="characters" required></p>
                <p class="actions"><button type="submit" id="continue">Continue</button></p>
                </form>

                """)
    }

    static func done(approved: Bool) -> String {
        let text =
            approved
            ? "You're connected. Go back to your device to continue." : "You didn't connect the device."
        return ConsentPage.document(
            title: "Connect a device", viewport: false, content: "<h1 id=\"device-result\">\(text)</h1>\n")
    }
}
