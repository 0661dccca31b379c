/// Turns the runtime names of classes into the readable type names written in element paths and
/// named in plans (`HomeViewController`, `UIButton`).
///
/// The UI adapter reads names with `String(describing: type(of: object))`, which gives a Swift
/// class's bare name and an Objective-C class's own name; this removes what would make the same
/// type look different from one run or one object to the next.
public enum TypeName {
    /// The prefix of the subclasses key-value observing creates at run time.
    static let observingPrefix = "NSKVONotifying_"

    /// The readable form of a runtime type name: without a key-value-observing subclass prefix,
    /// without a module qualifier (`MyApp.HomeViewController` → `HomeViewController`) and without
    /// generic arguments (`UIHostingController<Content>` → `UIHostingController`).
    public static func readable(_ runtimeName: String) -> String {
        let bytes = runtimeName.utf8
        var start = bytes.startIndex
        if runtimeName.hasPrefix(observingPrefix) {
            start = bytes.index(start, offsetBy: observingPrefix.utf8.count)
        }
        var end = bytes.endIndex
        var index = start
        while index < end {
            switch bytes[index] {
            case UInt8(ascii: "<"): end = index
            case UInt8(ascii: "."): start = bytes.index(after: index)
            default: break
            }
            if index < end { index = bytes.index(after: index) }
        }
        guard start < end else { return runtimeName }
        if start == bytes.startIndex, end == bytes.endIndex { return runtimeName }
        return String(runtimeName[start..<end])
    }

    /// The names to look a plan's type name up under, in order: as written, then qualified by
    /// each module (`HomeViewController` in `MyApp` → `MyApp.HomeViewController`), because Swift
    /// classes are registered with the runtime under their module-qualified name.
    /// - Parameters:
    ///   - typeName: the name the plan uses.
    ///   - modules: the modules to try, in order (the app's own module first).
    public static func runtimeCandidates(for typeName: String, modules: [String]) -> [String] {
        var candidates = [typeName]
        guard !typeName.contains(".") else { return candidates }
        for module in modules where !module.isEmpty {
            let qualified = "\(moduleName(fromProductName: module)).\(typeName)"
            if !candidates.contains(qualified) { candidates.append(qualified) }
        }
        return candidates
    }

    /// The Swift module name of a product (an executable or bundle name): characters that cannot
    /// appear in an identifier become `_`, and a leading digit is prefixed with `_`.
    public static func moduleName(fromProductName product: String) -> String {
        var name = String(
            product.map { character -> Character in
                character.isLetter || character.isNumber || character == "_" ? character : "_"
            })
        if let first = name.first, first.isNumber { name = "_" + name }
        return name
    }
}
