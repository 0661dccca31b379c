// The SDK re-exports the wire types (Message, JSONValue, Timestamp, ...) so that an app needs
// only `import Footprint`.
@_exported import FootprintWire
