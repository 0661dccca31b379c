import FootprintServer
import FootprintWire

/// The server's CPU cost per batch before storage: parsing and validating a `/v1/batch` body of
/// 100 SDK-shaped events, and encoding one event.
let ingestDecodeSuite = BenchmarkSuite(name: "ingest-decode") {
    let body = LoadGenerator.makeBody(connection: 0, batch: 0)
    let received = Timestamp(millisecondsSince1970: 1_795_981_800_000)
    let parse = Measure.samples(iterations: 200, warmup: 10) { _ = try? JSONParser().parse(body) }
    let json = try JSONParser().parse(body)
    let decode = Measure.samples(iterations: 200, warmup: 10) {
        _ = try? IngestDecoder.decode(json, impliedType: nil, receivedAt: received)
    }
    let items = json["batch"]!.arrayValue!
    let validate = Measure.samples(iterations: 200, warmup: 10) {
        for item in items { _ = try? Message(validating: item, receivedAt: received, makeMessageId: { "x" }) }
    }
    let message = try Message(validating: items[0], receivedAt: received, makeMessageId: { "x" })
    let encode = Measure.samples(iterations: 2000, warmup: 10) { _ = message.jsonBytes }
    return [
        BenchmarkRow(
            metric: "parse a batch of 100 (median)", value: Measure.duration(Measure.quantile(parse, 0.5)),
            note: "\(body.count) bytes"),
        BenchmarkRow(
            metric: "decode + validate a batch of 100 (median)",
            value: Measure.duration(Measure.quantile(decode, 0.5))),
        BenchmarkRow(
            metric: "Message(validating:) × 100 (median)",
            value: Measure.duration(Measure.quantile(validate, 0.5))),
        BenchmarkRow(
            metric: "encode one event (median)", value: Measure.duration(Measure.quantile(encode, 0.5))),
    ]
}
