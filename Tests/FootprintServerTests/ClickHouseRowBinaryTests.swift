import FootprintWire
import Testing

@testable import FootprintServer

/// The exact bytes of every `RowBinary` encoding the store's INSERTs use.
struct ClickHouseRowBinaryTests {
    static func encoded(_ write: (inout ClickHouseRowBinary) -> Void) -> [UInt8] {
        var rows = ClickHouseRowBinary()
        write(&rows)
        return rows.bytes
    }

    static let varints: [(UInt64, [UInt8])] = [
        (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
        (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: varints)
    func varintsAreLEB128(value: UInt64, bytes: [UInt8]) {
        #expect(Self.encoded { $0.appendVarint(value) } == bytes)
    }

    @Test func integersAreLittleEndian() {
        #expect(Self.encoded { $0.append(UInt8(0xAB)) } == [0xAB])
        #expect(Self.encoded { $0.append(UInt64(0x0102_0304_0506_0708)) } == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(Self.encoded { $0.append(Int64(-2)) } == [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.encoded { $0.append(Int64.min) } == [0, 0, 0, 0, 0, 0, 0, 0x80])
        #expect(
            Self.encoded { $0.append(Int64(1_764_720_000_000)) } == [
                0x00, 0x3C, 0x82, 0xE1, 0x9A, 0x01, 0, 0,
            ])
    }

    @Test func stringsAreTheirLengthThenTheirUTF8BytesUnescaped() {
        #expect(Self.encoded { $0.append("") } == [0])
        #expect(Self.encoded { $0.append("a\tb\n\\'") } == [6, 0x61, 0x09, 0x62, 0x0A, 0x5C, 0x27])
        #expect(Self.encoded { $0.append("é\u{0}") } == [3, 0xC3, 0xA9, 0x00])
        let long = String(repeating: "x", count: 200)
        #expect(Self.encoded { $0.append(long) } == [0xC8, 0x01] + Array(long.utf8))
    }

    @Test func nullablesAreAFlagByteThenTheValue() {
        #expect(Self.encoded { $0.append(String?.none) } == [1])
        #expect(Self.encoded { $0.append(String?.some("")) } == [0, 0])
        #expect(Self.encoded { $0.append(String?.some("ab")) } == [0, 2, 0x61, 0x62])
        #expect(Self.encoded { $0.append(Int64?.none) } == [1])
        #expect(Self.encoded { $0.append(Int64?.some(1)) } == [0, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func arraysAreTheirCountThenTheirElements() {
        #expect(Self.encoded { $0.append([UInt8]()) } == [0])
        #expect(Self.encoded { $0.append([UInt8]([1, 2, 255])) } == [3, 1, 2, 255])
        #expect(Self.encoded { $0.append([String]()) } == [0])
        #expect(Self.encoded { $0.append(["a", "", "bc"]) } == [3, 1, 0x61, 0, 2, 0x62, 0x63])
    }

    @Test func aLostEventsRowIsItsColumnsInOrder() {
        let batch = IngestBatch(
            projectId: 7, events: [], evictedCount: 3, batchKey: "k",
            receivedAt: Timestamp(millisecondsSince1970: 258))
        #expect(
            Self.encoded { ClickHouseRows.appendLostEvents(of: batch, keep: 1, to: &$0) }
                == [7, 0, 0, 0, 0, 0, 0, 0] + [1, 0x6B] + [3, 0, 0, 0, 0, 0, 0, 0] + [2, 1, 0, 0, 0, 0, 0, 0]
                + [1, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func aCopyRecordDecodesTheCheckedFields() {
        let fields: [Substring] = ["d\\tx", "m", "9", "\\N", "-1"]
        #expect(
            Self.encoded { ClickHouseRows.appendCopy(fields, sequence: 9, project: 1, to: &$0) }
                == [1, 0, 0, 0, 0, 0, 0, 0] + [3, 0x64, 0x09, 0x78] + [1, 0x6D] + [9, 0, 0, 0, 0, 0, 0, 0] + [
                    1
                ]
                + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }
}
