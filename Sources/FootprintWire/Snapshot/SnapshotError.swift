/// Why a snapshot was refused: a stable code, the field at fault and a message for people.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of fault.
    public var code: Code
    /// The field at fault, as a path from the top of the document: `elements[3].frame.x`.
    /// Empty when the fault is the document itself.
    public var field: String
    /// What is wrong, for people.
    public var message: String

    /// Creates an error.
    public init(code: Code, field: String, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// The kinds of fault; new codes may be added.
    public typealias Code = ErrorCode<SnapshotError>

    public var description: String {
        field.isEmpty ? "\(code.name): \(message)" : "\(code.name) at \(field): \(message)"
    }
}

extension ErrorCode where Domain == SnapshotError {
    /// The document is not JSON, or not an object.
    public static var unreadable: Self { Self("unreadable") }
    /// The document is larger than ``ScreenSnapshot/Limits/maximumDocumentBytes``.
    public static var documentTooLarge: Self { Self("document_too_large") }
    /// A required field is missing.
    public static var missingField: Self { Self("missing_field") }
    /// A field has the wrong JSON type, an unknown value or a malformed text.
    public static var invalidField: Self { Self("invalid_field") }
    /// A number is not finite or outside its range.
    public static var outOfRange: Self { Self("out_of_range") }
    /// A string is longer than its limit.
    public static var tooLong: Self { Self("too_long") }
    /// There are more elements than ``ScreenSnapshot/Limits/maximumElements``.
    public static var tooManyElements: Self { Self("too_many_elements") }
    /// The image is not valid Base64 or does not start the way its format does.
    public static var invalidImage: Self { Self("invalid_image") }
    /// The image is larger than ``ScreenSnapshot/Limits/maximumImageBytes``.
    public static var imageTooLarge: Self { Self("image_too_large") }
    /// An ignored element carries text: ignored elements never do.
    public static var ignoredWithText: Self { Self("ignored_with_text") }
}
