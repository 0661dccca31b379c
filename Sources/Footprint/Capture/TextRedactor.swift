/// Redacts captured text that looks like personal data: e-mail addresses become `[email]`, card
/// numbers (13–19 digits passing the Luhn check) `[card]`, phone numbers `[phone]`.
///
/// Phone numbers are digit runs (spaces, dashes, dots and parentheses allowed inside) with
/// 9–15 digits, or 7–15 digits after a `+`, or 7–8 digits whose first group is not a four-digit
/// year (so `555-1234` is redacted and `2024-01-15` is not). The rules lean towards redacting.
public enum TextRedactor {
    /// The text with every e-mail address, card number and phone number replaced.
    public static func redact(_ text: String) -> String {
        var needsWork = false
        for byte in text.utf8 where byte == UInt8(ascii: "@") || (byte >= 0x30 && byte <= 0x39) {
            needsWork = true
            break
        }
        guard needsWork else { return text }
        return redactNumbers(redactEmails(Array(text)))
    }

    private static func isLocalPart(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || "._%+-'".contains(character)
    }

    private static func isDomainPart(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "." || character == "-"
    }

    private static func redactEmails(_ characters: [Character]) -> [Character] {
        guard characters.contains("@") else { return characters }
        var output: [Character] = []
        var index = 0
        while index < characters.count {
            guard characters[index] == "@" else {
                output.append(characters[index])
                index += 1
                continue
            }
            var localStart = output.count
            while localStart > 0, isLocalPart(output[localStart - 1]) { localStart -= 1 }
            var domainEnd = index + 1
            while domainEnd < characters.count, isDomainPart(characters[domainEnd]) { domainEnd += 1 }
            while domainEnd > index + 1, characters[domainEnd - 1] == "." || characters[domainEnd - 1] == "-"
            {
                domainEnd -= 1
            }
            let domain = characters[(index + 1)..<domainEnd]
            let hasDot = domain.dropFirst().dropLast().contains(".")
            if localStart < output.count, hasDot {
                output.removeSubrange(localStart...)
                output += "[email]"
                index = domainEnd
            } else {
                output.append("@")
                index += 1
            }
        }
        return output
    }

    private static func isSeparator(_ character: Character) -> Bool {
        character == " " || character == "-" || character == "." || character == "(" || character == ")"
    }

    private static func redactNumbers(_ characters: [Character]) -> String {
        var output = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let startsRun =
                character.isASCIIDigit
                || ((character == "+" || character == "(") && index + 1 < characters.count)
            guard startsRun, index == 0 || !characters[index - 1].isASCIIDigit else {
                output.append(character)
                index += 1
                continue
            }
            // The longest run of digits and separators that ends with a digit.
            var end = index
            var lastDigitEnd = index
            var digits: [UInt8] = []
            var firstGroupLength = 0
            var sawSeparator = false
            if character == "+" || character == "(" { end += 1 }
            while end < characters.count {
                let next = characters[end]
                if let digit = next.asciiDigitValue {
                    digits.append(digit)
                    if !sawSeparator { firstGroupLength += 1 }
                    end += 1
                    lastDigitEnd = end
                } else if isSeparator(next) {
                    if !digits.isEmpty { sawSeparator = true }
                    end += 1
                } else {
                    break
                }
            }
            guard lastDigitEnd > index else {
                output.append(character)
                index += 1
                continue
            }
            // A run is redacted whole or kept whole: never a tail of it.
            if let label = label(digits: digits, plus: character == "+", firstGroup: firstGroupLength) {
                output += label
            } else {
                output += String(characters[index..<lastDigitEnd])
            }
            index = lastDigitEnd
        }
        return output
    }

    private static func label(digits: [UInt8], plus: Bool, firstGroup: Int) -> String? {
        if (13...19).contains(digits.count), passesLuhn(digits) { return "[card]" }
        if (9...15).contains(digits.count) { return "[phone]" }
        if plus, (7...15).contains(digits.count) { return "[phone]" }
        if (7...8).contains(digits.count), firstGroup != 4, firstGroup < digits.count { return "[phone]" }
        return nil
    }

    private static func passesLuhn(_ digits: [UInt8]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            var value = Int(digit)
            if offset % 2 == 1 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return sum % 10 == 0
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { asciiDigitValue != nil }

    fileprivate var asciiDigitValue: UInt8? {
        guard let ascii = asciiValue, ascii >= 0x30, ascii <= 0x39 else { return nil }
        return ascii - 0x30
    }
}
