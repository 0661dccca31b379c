import FootprintWire

extension ErrorCode where Domain == ServerError {
    /// A QR code could not be made (the text is empty or too long).
    public static var qrCode: Self { Self("qr_code") }
    /// A connect session was asked for with a bad lifetime, URL scheme or server URL, or an
    /// unknown id.
    public static var connectSession: Self { Self("connect_session") }
    /// A project has as many open connect sessions as it may.
    public static var tooManyConnectSessions: Self { Self("too_many_connect_sessions") }
}
