// French (formal "vous"). Mirrors the English table key for key; see MendLocalization+English.swift for the rules.

extension MendLocalization {
    // swift-format-ignore
    static let french = Table(
        language: "fr",
        messages: [
            .generic: Message(title: "Une erreur est survenue", message: "Une erreur est survenue. Veuillez réessayer plus tard."),
            .serviceUnavailable: Message(title: "Service indisponible", message: "Le service est temporairement indisponible. Veuillez réessayer dans un instant."),
            .rateLimited: Message(title: "Trop de requêtes", message: "Trop de requêtes ont été envoyées en peu de temps. Veuillez patienter un peu, puis réessayer."),
            .temporarilyBlocked: Message(title: "Action temporairement bloquée", message: "Cette action est temporairement bloquée. Veuillez réessayer plus tard."),
            .sessionExpired: Message(title: "Session expirée", message: "Votre session a expiré. Veuillez vous reconnecter."),
            .appRemoved: Message(title: "App déconnectée", message: "Cette app n’est plus connectée à votre compte. Veuillez vous reconnecter pour l’associer à nouveau."),
            .passwordChanged: Message(title: "Mot de passe modifié", message: "Votre mot de passe a été modifié depuis votre dernière connexion. Veuillez vous reconnecter."),
            .accountCheckpointed: Message(title: "Action requise sur le compte", message: "Votre compte requiert votre attention. Veuillez vous connecter sur le site web du fournisseur pour continuer."),
            .accountUnconfirmed: Message(title: "Compte non confirmé", message: "Votre compte n’est pas encore confirmé. Veuillez le confirmer sur le site web du fournisseur, puis réessayer."),
            .permissionMissing: Message(title: "Autorisation requise", message: "Cette action nécessite une autorisation que vous n’avez pas accordée."),
            .accessDenied: Message(title: "Accès refusé", message: "Vous n’avez pas accès à ce contenu."),
            .notFound: Message(title: "Introuvable", message: "L’élément que vous recherchez est introuvable. Il a peut-être été supprimé."),
            .duplicatePost: Message(title: "Déjà publié", message: "Vous avez déjà publié ce contenu. Modifiez-le légèrement et réessayez."),
            .linkNotReadable: Message(title: "Lien indisponible", message: "Le lien n’a pas pu être lu. Veuillez le vérifier et réessayer."),
            .appMisconfigured: Message(title: "App mal configurée", message: "Cette app n’est pas configurée correctement. Veuillez contacter l’assistance."),
            .loginFailed: Message(title: "Échec de la connexion", message: "La connexion n’a pas pu aboutir. Veuillez réessayer."),
            .userMismatch: Message(title: "Compte différent", message: "La connexion a été effectuée avec un autre compte. Veuillez vous connecter avec le compte utilisé précédemment."),
            .systemAccountUnavailable: Message(title: "Compte indisponible", message: "Le compte configuré sur cet appareil ne peut pas être utilisé pour la connexion. Vérifiez vos paramètres, puis réessayez."),
            .notLoggedIn: Message(title: "Connexion requise", message: "Veuillez vous connecter pour continuer."),
            .paymentRequired: Message(title: "Abonnement requis", message: "L’abonnement à ce service n’est pas valide ou a expiré."),
            .updateConflict: Message(title: "Modifié ailleurs", message: "Cet élément a été modifié ailleurs. Rechargez-le, puis effectuez à nouveau votre modification."),
            .duplicateObject: Message(title: "Élément déjà existant", message: "Cet élément existe déjà."),
            .invalidInput: Message(title: "Vérifiez votre saisie", message: "Certaines informations ne sont pas valides. Veuillez les vérifier et réessayer."),
            .partialContent: Message(title: "Contenu incomplet", message: "Une partie du contenu n’a pas pu être chargée."),
            .offline: Message(title: "Vous êtes hors ligne", message: "Vous semblez être hors ligne. Vérifiez votre connexion Internet et réessayez."),
            .timedOut: Message(title: "Délai d’attente dépassé", message: "Le serveur a mis trop de temps à répondre. Veuillez réessayer."),
            .secureConnectionFailed: Message(title: "Échec de la connexion sécurisée", message: "Impossible d’établir une connexion sécurisée avec le serveur."),
            .serverUnreachable: Message(title: "Serveur inaccessible", message: "Impossible de joindre le serveur. Vérifiez votre connexion Internet et réessayez."),
            .connectionLost: Message(title: "Connexion perdue", message: "La connexion a été interrompue. Veuillez réessayer."),
            .cancelled: Message(title: "Annulé", message: "La requête a été annulée."),
            .unreadableResponse: Message(title: "Réponse inattendue", message: "Le serveur a envoyé une réponse illisible. Veuillez réessayer."),
        ],
        recoveries: [
            .none: RecoveryText(suggestion: nil, options: ["OK"]),
            .retry: RecoveryText(suggestion: "Réessayez dans un instant.", options: ["Réessayer", "Annuler"]),
            .waitForRateLimit: RecoveryText(suggestion: "Patientez un peu, puis réessayez.", options: ["OK"]),
            .reauthenticate: RecoveryText(suggestion: "Reconnectez-vous pour continuer.", options: ["Se connecter", "Annuler"]),
            .requestPermissions: RecoveryText(suggestion: "Accordez l’autorisation pour continuer.", options: ["Autoriser", "Pas maintenant"]),
            .visitProvider: RecoveryText(suggestion: "Connectez-vous sur le site web du fournisseur pour résoudre ce problème.", options: ["OK"]),
            .checkNetwork: RecoveryText(suggestion: "Vérifiez votre connexion Internet, puis réessayez.", options: ["Réessayer", "Annuler"]),
            .changeRequest: RecoveryText(suggestion: "Vérifiez votre saisie et réessayez.", options: ["OK"]),
            .reloadAndRetry: RecoveryText(suggestion: "Rechargez, puis effectuez à nouveau votre modification.", options: ["Recharger", "Annuler"]),
            .fixConfiguration: RecoveryText(suggestion: "Veuillez contacter l’assistance.", options: ["OK"]),
            .contactSupport: RecoveryText(suggestion: "Si le problème persiste, contactez l’assistance en indiquant la référence.", options: ["OK"]),
        ],
        labels: [
            .reference: "Référence",
        ]
    )
}
