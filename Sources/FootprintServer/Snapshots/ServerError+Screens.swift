import FootprintWire

extension ErrorCode where Domain == ServerError {
    /// A QR code could not be made (the text is empty or too long).
    public static var qrCode: Self { Self("qr_code") }
    /// A connect session could not be started or found (too many open, unknown id, bad lifetime).
    public static var connectSession: Self { Self("connect_session") }
}
