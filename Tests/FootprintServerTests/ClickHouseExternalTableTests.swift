import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The form a read's table of rows travels in: one part holding the rows as they are, ended by
/// a boundary that occurs nowhere in them.
struct ClickHouseExternalTableTests {
    static func table(_ strings: [String]) -> ClickHouseExternalTable {
        var rows = ClickHouseRowBinary()
        for string in strings { rows.append(string) }
        return ClickHouseExternalTable(name: "checked", structure: "s String", rows: rows)
    }

    @Test func theFormHoldsTheRowsInOnePart() throws {
        let table = Self.table(["a", "b"])
        let form = table.formData()
        #expect(form.boundary == "footprint-rows")
        let head =
            "--footprint-rows\r\nContent-Disposition: form-data; name=\"checked\"; filename=\"checked\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        #expect(form.body == Array(head.utf8) + table.rows.bytes + Array("\r\n--footprint-rows--\r\n".utf8))
    }

    @Test func theStatementTravelsAsAFieldBeforeTheRows() throws {
        let table = Self.table(["a"])
        let form = table.formData(query: "SELECT s FROM checked")
        let head =
            "--footprint-rows\r\nContent-Disposition: form-data; name=\"query\"\r\n\r\nSELECT s FROM checked\r\n"
            + "--footprint-rows\r\nContent-Disposition: form-data; name=\"checked\"; filename=\"checked\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        #expect(form.body == Array(head.utf8) + table.rows.bytes + Array("\r\n--footprint-rows--\r\n".utf8))
        // A statement that holds the boundary gets another.
        let other = table.formData(query: "SELECT '--footprint-rows'")
        #expect(other.boundary != "footprint-rows")
    }

    @Test func theBoundaryIsNeverInTheRows() throws {
        // Rows that hold the first boundary (and a closing one) get another.
        let table = Self.table(["x\r\n--footprint-rows--\r\n", "footprint-rows-1-"])
        let form = table.formData()
        #expect(form.boundary != "footprint-rows")
        #expect(!ClickHouseExternalTable.contains(table.rows.bytes, Array(form.boundary.utf8)))
        #expect(form.body.suffix(form.boundary.utf8.count + 6) == Array("--\(form.boundary)--\r\n".utf8)[...])
    }

    @Test func severalTablesTravelAsOnePartEachWithOneBoundary() throws {
        let first = Self.table(["a"])
        var rows = ClickHouseRowBinary()
        rows.append("footprint-rows")
        let second = ClickHouseExternalTable(name: "other", structure: "s String", rows: rows)
        let form = ClickHouseExternalTable.formData([first, second], query: "SELECT 1")
        // The second table's rows hold the first boundary: both parts take another.
        #expect(form.boundary != "footprint-rows")
        let boundary = form.boundary
        func part(_ table: ClickHouseExternalTable) -> [UInt8] {
            Array(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(table.name)\"; filename=\"\(table.name)\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8) + table.rows.bytes
                + Array("\r\n".utf8)
        }
        let query = Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"query\"\r\n\r\nSELECT 1\r\n".utf8)
        #expect(form.body == query + part(first) + part(second) + Array("--\(boundary)--\r\n".utf8))
        // One table's form is the form of it alone.
        #expect(ClickHouseExternalTable.formData([first]).body == first.formData().body)
    }

    /// `contains` agrees with a plain search on random bytes of a small alphabet (many partial
    /// matches), patterns at the start, the end, longer than the bytes, and absent.
    @Test func containsAgreesWithAPlainSearch() {
        var generator = SeededRandom(seed: 29)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                UInt8.random(in: 97...99, using: &generator)
            }
            let pattern = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                UInt8.random(in: 97...99, using: &generator)
            }
            let plain =
                pattern.count <= bytes.count
                && (0...(bytes.count - pattern.count)).contains {
                    bytes[$0..<$0 + pattern.count].elementsEqual(pattern)
                }
            #expect(ClickHouseExternalTable.contains(bytes, pattern) == plain, "\(bytes) \(pattern)")
        }
    }
}
