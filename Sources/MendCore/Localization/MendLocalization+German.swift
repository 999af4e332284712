// German (formal "Sie"). Mirrors the English table key for key; see MendLocalization+English.swift for the rules.

extension MendLocalization {
    // swift-format-ignore
    static let german = Table(
        language: "de",
        messages: [
            .generic: Message(title: "Ein Fehler ist aufgetreten", message: "Ein Fehler ist aufgetreten. Bitte versuchen Sie es später erneut."),
            .serviceUnavailable: Message(title: "Dienst nicht verfügbar", message: "Der Dienst ist vorübergehend nicht verfügbar. Bitte versuchen Sie es gleich noch einmal."),
            .rateLimited: Message(title: "Zu viele Anfragen", message: "In kurzer Zeit wurden zu viele Anfragen gesendet. Bitte warten Sie einen Moment und versuchen Sie es dann erneut."),
            .temporarilyBlocked: Message(title: "Vorübergehend gesperrt", message: "Diese Aktion ist vorübergehend gesperrt. Bitte versuchen Sie es später erneut."),
            .sessionExpired: Message(title: "Sitzung abgelaufen", message: "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an."),
            .appRemoved: Message(title: "App nicht mehr verbunden", message: "Diese App ist nicht mehr mit Ihrem Konto verbunden. Bitte melden Sie sich erneut an, um sie wieder zu verbinden."),
            .passwordChanged: Message(title: "Passwort geändert", message: "Ihr Passwort wurde seit Ihrer letzten Anmeldung geändert. Bitte melden Sie sich erneut an."),
            .accountCheckpointed: Message(title: "Konto erfordert Aufmerksamkeit", message: "Bei Ihrem Konto ist eine Aktion erforderlich. Bitte melden Sie sich auf der Website des Anbieters an, um fortzufahren."),
            .accountUnconfirmed: Message(title: "Konto nicht bestätigt", message: "Ihr Konto ist noch nicht bestätigt. Bitte bestätigen Sie es auf der Website des Anbieters und versuchen Sie es dann erneut."),
            .permissionMissing: Message(title: "Berechtigung erforderlich", message: "Für diese Aktion ist eine Berechtigung erforderlich, die Sie nicht erteilt haben."),
            .accessDenied: Message(title: "Kein Zugriff", message: "Sie haben keinen Zugriff auf diesen Inhalt."),
            .notFound: Message(title: "Nicht gefunden", message: "Der gesuchte Inhalt wurde nicht gefunden. Möglicherweise wurde er entfernt."),
            .duplicatePost: Message(title: "Bereits veröffentlicht", message: "Sie haben diesen Beitrag bereits veröffentlicht. Ändern Sie ihn etwas ab und versuchen Sie es erneut."),
            .linkNotReadable: Message(title: "Link nicht verfügbar", message: "Der Link konnte nicht gelesen werden. Bitte überprüfen Sie ihn und versuchen Sie es erneut."),
            .appMisconfigured: Message(title: "App nicht eingerichtet", message: "Diese App ist nicht richtig eingerichtet. Bitte wenden Sie sich an den Support."),
            .loginFailed: Message(title: "Anmeldung fehlgeschlagen", message: "Die Anmeldung konnte nicht abgeschlossen werden. Bitte versuchen Sie es erneut."),
            .userMismatch: Message(title: "Anderes Konto", message: "Sie haben sich mit einem anderen Konto angemeldet. Bitte melden Sie sich mit dem Konto an, das Sie zuvor verwendet haben."),
            .systemAccountUnavailable: Message(title: "Konto nicht verfügbar", message: "Das Konto auf diesem Gerät kann nicht für die Anmeldung verwendet werden. Überprüfen Sie Ihre Einstellungen und versuchen Sie es dann erneut."),
            .notLoggedIn: Message(title: "Nicht angemeldet", message: "Bitte melden Sie sich an, um fortzufahren."),
            .paymentRequired: Message(title: "Abonnement erforderlich", message: "Das Abonnement für diesen Dienst ist ungültig oder abgelaufen."),
            .updateConflict: Message(title: "An anderer Stelle geändert", message: "Dieses Element wurde an anderer Stelle geändert. Laden Sie es neu und nehmen Sie Ihre Änderung erneut vor."),
            .duplicateObject: Message(title: "Bereits vorhanden", message: "Dieses Element ist bereits vorhanden."),
            .invalidInput: Message(title: "Eingabe überprüfen", message: "Einige Angaben sind ungültig. Bitte überprüfen Sie sie und versuchen Sie es erneut."),
            .partialContent: Message(title: "Inhalte unvollständig", message: "Einige Inhalte konnten nicht geladen werden."),
            .offline: Message(title: "Sie sind offline", message: "Sie scheinen offline zu sein. Überprüfen Sie Ihre Internetverbindung und versuchen Sie es erneut."),
            .timedOut: Message(title: "Zeitüberschreitung", message: "Der Server hat zu lange für eine Antwort gebraucht. Bitte versuchen Sie es erneut."),
            .secureConnectionFailed: Message(title: "Sichere Verbindung fehlgeschlagen", message: "Es konnte keine sichere Verbindung zum Server hergestellt werden."),
            .serverUnreachable: Message(title: "Server nicht erreichbar", message: "Der Server konnte nicht erreicht werden. Überprüfen Sie Ihre Internetverbindung und versuchen Sie es erneut."),
            .connectionLost: Message(title: "Verbindung unterbrochen", message: "Die Verbindung wurde unterbrochen. Bitte versuchen Sie es erneut."),
            .cancelled: Message(title: "Abgebrochen", message: "Die Anfrage wurde abgebrochen."),
            .unreadableResponse: Message(title: "Unerwartete Antwort", message: "Der Server hat eine Antwort gesendet, die nicht gelesen werden konnte. Bitte versuchen Sie es erneut."),
        ],
        recoveries: [
            .none: RecoveryText(suggestion: nil, options: ["OK"]),
            .retry: RecoveryText(suggestion: "Versuchen Sie es gleich noch einmal.", options: ["Erneut versuchen", "Abbrechen"]),
            .waitForRateLimit: RecoveryText(suggestion: "Warten Sie einen Moment und versuchen Sie es dann erneut.", options: ["OK"]),
            .reauthenticate: RecoveryText(suggestion: "Melden Sie sich erneut an, um fortzufahren.", options: ["Anmelden", "Abbrechen"]),
            .requestPermissions: RecoveryText(suggestion: "Erteilen Sie die Berechtigung, um fortzufahren.", options: ["Erlauben", "Nicht jetzt"]),
            .visitProvider: RecoveryText(suggestion: "Melden Sie sich auf der Website des Anbieters an, um das Problem zu beheben.", options: ["OK"]),
            .checkNetwork: RecoveryText(suggestion: "Überprüfen Sie Ihre Internetverbindung und versuchen Sie es dann erneut.", options: ["Erneut versuchen", "Abbrechen"]),
            .changeRequest: RecoveryText(suggestion: "Überprüfen Sie Ihre Eingabe und versuchen Sie es erneut.", options: ["OK"]),
            .reloadAndRetry: RecoveryText(suggestion: "Laden Sie neu und nehmen Sie Ihre Änderung dann erneut vor.", options: ["Neu laden", "Abbrechen"]),
            .fixConfiguration: RecoveryText(suggestion: "Bitte wenden Sie sich an den Support.", options: ["OK"]),
            .contactSupport: RecoveryText(suggestion: "Wenn das Problem weiterhin auftritt, wenden Sie sich an den Support und geben Sie die Referenz an.", options: ["OK"]),
        ],
        labels: [
            .reference: "Referenz",
        ]
    )
}
