/// The version of Footprint: the SDK reports it as `context.library.version`, and
/// `footprint --version` prints it. The one place it is written.
public enum FootprintVersion {
    /// `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
