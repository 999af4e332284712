// Spanish (neutral, Latin-American-friendly, "tú"). Mirrors the English table key for key; see MendLocalization+English.swift for the rules.

extension MendLocalization {
    // swift-format-ignore
    static let spanish = Table(
        language: "es",
        messages: [
            .generic: Message(title: "Algo salió mal", message: "Se produjo un error. Vuelve a intentarlo más tarde."),
            .serviceUnavailable: Message(title: "Servicio no disponible", message: "El servicio no está disponible temporalmente. Vuelve a intentarlo en unos momentos."),
            .rateLimited: Message(title: "Demasiadas solicitudes", message: "Se realizaron demasiadas solicitudes en poco tiempo. Espera un momento y vuelve a intentarlo."),
            .temporarilyBlocked: Message(title: "Bloqueado temporalmente", message: "Esta acción está bloqueada temporalmente. Vuelve a intentarlo más tarde."),
            .sessionExpired: Message(title: "Sesión expirada", message: "Tu sesión expiró. Vuelve a iniciar sesión."),
            .appRemoved: Message(title: "App desconectada", message: "Esta app ya no está conectada a tu cuenta. Vuelve a iniciar sesión para conectarla de nuevo."),
            .passwordChanged: Message(title: "Contraseña cambiada", message: "Tu contraseña cambió desde la última vez que iniciaste sesión. Vuelve a iniciar sesión."),
            .accountCheckpointed: Message(title: "Tu cuenta requiere atención", message: "Tu cuenta requiere atención. Inicia sesión en el sitio web del proveedor para continuar."),
            .accountUnconfirmed: Message(title: "Cuenta sin confirmar", message: "Tu cuenta aún no está confirmada. Confírmala en el sitio web del proveedor y vuelve a intentarlo."),
            .permissionMissing: Message(title: "Se necesita un permiso", message: "Esta acción requiere un permiso que no otorgaste."),
            .accessDenied: Message(title: "Sin acceso", message: "No tienes acceso a este contenido."),
            .notFound: Message(title: "No se encontró", message: "No se encontró lo que buscas. Es posible que se haya eliminado."),
            .duplicatePost: Message(title: "Ya publicado", message: "Ya publicaste esto. Modifícalo un poco y vuelve a intentarlo."),
            .linkNotReadable: Message(title: "Enlace no disponible", message: "No se pudo leer el enlace. Revísalo y vuelve a intentarlo."),
            .appMisconfigured: Message(title: "App no configurada", message: "Esta app no está configurada correctamente. Comunícate con el equipo de soporte."),
            .loginFailed: Message(title: "Error al iniciar sesión", message: "No se pudo completar el inicio de sesión. Vuelve a intentarlo."),
            .userMismatch: Message(title: "Cuenta diferente", message: "Iniciaste sesión con otra cuenta. Inicia sesión con la cuenta que usaste antes."),
            .systemAccountUnavailable: Message(title: "Cuenta no disponible", message: "La cuenta de este dispositivo no se puede usar para iniciar sesión. Revisa la configuración y vuelve a intentarlo."),
            .notLoggedIn: Message(title: "Sesión no iniciada", message: "Inicia sesión para continuar."),
            .paymentRequired: Message(title: "Se necesita una suscripción", message: "La suscripción a este servicio no es válida o expiró."),
            .updateConflict: Message(title: "Modificado en otro lugar", message: "Este elemento se modificó en otro lugar. Vuelve a cargarlo y repite el cambio."),
            .duplicateObject: Message(title: "Ya existe", message: "Este elemento ya existe."),
            .invalidInput: Message(title: "Revisa los datos", message: "Algunos datos no son válidos. Revísalos y vuelve a intentarlo."),
            .partialContent: Message(title: "Falta contenido", message: "No se pudo cargar parte del contenido."),
            .offline: Message(title: "Sin conexión", message: "Parece que no tienes conexión. Revisa tu conexión a Internet y vuelve a intentarlo."),
            .timedOut: Message(title: "Se agotó el tiempo de espera", message: "El servidor tardó demasiado en responder. Vuelve a intentarlo."),
            .secureConnectionFailed: Message(title: "Error de conexión segura", message: "No se pudo establecer una conexión segura con el servidor."),
            .serverUnreachable: Message(title: "Servidor inaccesible", message: "No se pudo conectar con el servidor. Revisa tu conexión a Internet y vuelve a intentarlo."),
            .connectionLost: Message(title: "Conexión perdida", message: "Se perdió la conexión. Vuelve a intentarlo."),
            .cancelled: Message(title: "Cancelado", message: "Se canceló la solicitud."),
            .unreadableResponse: Message(title: "Respuesta inesperada", message: "El servidor envió una respuesta que no se pudo leer. Vuelve a intentarlo."),
        ],
        recoveries: [
            .none: RecoveryText(suggestion: nil, options: ["Aceptar"]),
            .retry: RecoveryText(suggestion: "Vuelve a intentarlo en unos momentos.", options: ["Reintentar", "Cancelar"]),
            .waitForRateLimit: RecoveryText(suggestion: "Espera un momento y vuelve a intentarlo.", options: ["Aceptar"]),
            .reauthenticate: RecoveryText(suggestion: "Vuelve a iniciar sesión para continuar.", options: ["Iniciar sesión", "Cancelar"]),
            .requestPermissions: RecoveryText(suggestion: "Otorga el permiso para continuar.", options: ["Permitir", "Ahora no"]),
            .visitProvider: RecoveryText(suggestion: "Inicia sesión en el sitio web del proveedor para resolverlo.", options: ["Aceptar"]),
            .checkNetwork: RecoveryText(suggestion: "Revisa tu conexión a Internet y vuelve a intentarlo.", options: ["Reintentar", "Cancelar"]),
            .changeRequest: RecoveryText(suggestion: "Revisa lo que escribiste y vuelve a intentarlo.", options: ["Aceptar"]),
            .reloadAndRetry: RecoveryText(suggestion: "Vuelve a cargar y repite el cambio.", options: ["Volver a cargar", "Cancelar"]),
            .fixConfiguration: RecoveryText(suggestion: "Comunícate con el equipo de soporte.", options: ["Aceptar"]),
            .contactSupport: RecoveryText(suggestion: "Si el problema persiste, comunícate con el equipo de soporte e indica la referencia.", options: ["Aceptar"]),
        ],
        labels: [
            .reference: "Referencia",
        ]
    )
}
