import FootprintWire

/// Encoding and parsing of one typical event.
let wireSuite = BenchmarkSuite(name: "wire") {
    let message = Message(
        type: .track, messageId: UUIDv7.make(at: Timestamp(millisecondsSince1970: 1_795_981_800_000)),
        anonymousId: "a-1", event: "Product Viewed",
        timestamp: Timestamp(millisecondsSince1970: 1_795_981_800_000),
        context: [
            "library": ["name": "footprint", "version": "0.1.0"], "os": ["name": "iOS", "version": "18.1"],
        ],
        properties: ["sku": "SKU-1", "price": 9.99, "quantity": 2, "category": "shoes", "onSale": true])
    var bytes: [UInt8] = []
    let encode = Measure.samples(iterations: 20_000) { bytes = message.jsonBytes }
    let parser = JSONParser()
    let parse = Measure.samples(iterations: 20_000) { _ = try? parser.parse(bytes) }
    return [
        BenchmarkRow(
            metric: "encode one event (median)", value: Measure.duration(Measure.quantile(encode, 0.5)),
            note: "\(bytes.count) bytes"),
        BenchmarkRow(
            metric: "parse one event (median)", value: Measure.duration(Measure.quantile(parse, 0.5))),
    ]
}
