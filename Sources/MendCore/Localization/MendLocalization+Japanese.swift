// Japanese (polite です/ます). Mirrors the English table key for key; see MendLocalization+English.swift for the rules.

extension MendLocalization {
    // swift-format-ignore
    static let japanese = Table(
        language: "ja",
        messages: [
            .generic: Message(title: "エラーが発生しました", message: "問題が発生しました。しばらくしてからもう一度お試しください。"),
            .serviceUnavailable: Message(title: "サービスを利用できません", message: "サービスが一時的に利用できません。少し時間をおいてから、もう一度お試しください。"),
            .rateLimited: Message(title: "リクエストが多すぎます", message: "短時間に多くのリクエストが行われました。しばらく待ってから、もう一度お試しください。"),
            .temporarilyBlocked: Message(title: "一時的にブロックされています", message: "この操作は一時的にブロックされています。しばらくしてからもう一度お試しください。"),
            .sessionExpired: Message(title: "セッションの有効期限切れ", message: "セッションの有効期限が切れました。もう一度ログインしてください。"),
            .appRemoved: Message(title: "アプリの接続が解除されました", message: "このアプリはアカウントに接続されていません。再接続するには、もう一度ログインしてください。"),
            .passwordChanged: Message(title: "パスワードが変更されました", message: "前回のログイン以降にパスワードが変更されました。もう一度ログインしてください。"),
            .accountCheckpointed: Message(title: "アカウントの確認が必要です", message: "アカウントで対応が必要な事項があります。続行するには、提供元のウェブサイトでログインしてください。"),
            .accountUnconfirmed: Message(title: "アカウントが未確認です", message: "アカウントの確認がまだ完了していません。提供元のウェブサイトで確認を済ませてから、もう一度お試しください。"),
            .permissionMissing: Message(title: "権限が必要です", message: "この操作には、まだ許可されていない権限が必要です。"),
            .accessDenied: Message(title: "アクセスできません", message: "このコンテンツへのアクセス権がありません。"),
            .notFound: Message(title: "見つかりません", message: "お探しのものが見つかりませんでした。削除された可能性があります。"),
            .duplicatePost: Message(title: "すでに投稿されています", message: "この内容はすでに投稿されています。内容を少し変更してから、もう一度お試しください。"),
            .linkNotReadable: Message(title: "リンクを利用できません", message: "リンクを読み込めませんでした。リンクを確認して、もう一度お試しください。"),
            .appMisconfigured: Message(title: "アプリが正しく設定されていません", message: "このアプリは正しく設定されていません。サポートにお問い合わせください。"),
            .loginFailed: Message(title: "ログインに失敗しました", message: "ログインを完了できませんでした。もう一度お試しください。"),
            .userMismatch: Message(title: "アカウントが異なります", message: "別のアカウントでログインしました。以前使用していたアカウントでログインしてください。"),
            .systemAccountUnavailable: Message(title: "アカウントを利用できません", message: "このデバイスのアカウントはログインに使用できません。設定を確認してから、もう一度お試しください。"),
            .notLoggedIn: Message(title: "ログインしていません", message: "続行するにはログインしてください。"),
            .paymentRequired: Message(title: "サブスクリプションが必要です", message: "このサービスのサブスクリプションが無効か、有効期限が切れています。"),
            .updateConflict: Message(title: "ほかの場所で変更されました", message: "この項目はほかの場所で変更されました。再読み込みしてから、もう一度変更してください。"),
            .duplicateObject: Message(title: "すでに存在します", message: "この項目はすでに存在します。"),
            .invalidInput: Message(title: "入力内容を確認してください", message: "無効な情報が含まれています。内容を確認して、もう一度お試しください。"),
            .partialContent: Message(title: "一部を読み込めませんでした", message: "一部のコンテンツを読み込めませんでした。"),
            .offline: Message(title: "オフラインです", message: "オフラインのようです。インターネット接続を確認して、もう一度お試しください。"),
            .timedOut: Message(title: "タイムアウトしました", message: "サーバーからの応答に時間がかかりすぎています。もう一度お試しください。"),
            .secureConnectionFailed: Message(title: "安全な接続に失敗しました", message: "サーバーとの安全な接続を確立できませんでした。"),
            .serverUnreachable: Message(title: "サーバーに接続できません", message: "サーバーに接続できませんでした。インターネット接続を確認して、もう一度お試しください。"),
            .connectionLost: Message(title: "接続が切断されました", message: "接続が切断されました。もう一度お試しください。"),
            .cancelled: Message(title: "キャンセルされました", message: "リクエストはキャンセルされました。"),
            .unreadableResponse: Message(title: "予期しない応答", message: "サーバーから読み取れない応答が返されました。もう一度お試しください。"),
        ],
        recoveries: [
            .none: RecoveryText(suggestion: nil, options: ["OK"]),
            .retry: RecoveryText(suggestion: "しばらくしてからもう一度お試しください。", options: ["再試行", "キャンセル"]),
            .waitForRateLimit: RecoveryText(suggestion: "しばらく待ってから、もう一度お試しください。", options: ["OK"]),
            .reauthenticate: RecoveryText(suggestion: "続行するには、もう一度ログインしてください。", options: ["ログイン", "キャンセル"]),
            .requestPermissions: RecoveryText(suggestion: "続行するには、権限を許可してください。", options: ["許可", "今はしない"]),
            .visitProvider: RecoveryText(suggestion: "この問題を解決するには、提供元のウェブサイトでログインしてください。", options: ["OK"]),
            .checkNetwork: RecoveryText(suggestion: "インターネット接続を確認してから、もう一度お試しください。", options: ["再試行", "キャンセル"]),
            .changeRequest: RecoveryText(suggestion: "入力内容を確認して、もう一度お試しください。", options: ["OK"]),
            .reloadAndRetry: RecoveryText(suggestion: "再読み込みしてから、もう一度変更してください。", options: ["再読み込み", "キャンセル"]),
            .fixConfiguration: RecoveryText(suggestion: "サポートにお問い合わせください。", options: ["OK"]),
            .contactSupport: RecoveryText(suggestion: "問題が解決しない場合は、参照IDを添えてサポートにお問い合わせください。", options: ["OK"]),
        ],
        labels: [
            .reference: "参照ID",
        ]
    )
}
