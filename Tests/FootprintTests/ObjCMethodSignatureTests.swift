import Footprint
import Testing

struct ObjCMethodSignatureTests {
    @Test(arguments: [
        ("v16@0:8", 0),
        ("v24@0:8@16", 1),
        ("v32@0:8@16@24", 2),
        ("v24@0:8@?16", 1),
        ("v24@0:8@\"NSString\"16", 1),
        ("Vv24@0:8r@16", 1),
    ])
    func hookablePurposeMethods(encoding: String, objectArguments: Int) throws {
        let signature = try #require(ObjCMethodSignature(typeEncoding: encoding))
        #expect(signature.hookableObjectArgumentCount == objectArguments)
    }

    @Test(arguments: [
        "B16@0:8",  // returns a Boolean
        "@16@0:8",  // returns an object
        "v24@0:8q16",  // takes an integer
        "v24@0:8B16",  // takes a Boolean
        "v48@0:8{CGRect={CGPoint=dd}{CGSize=dd}}16",  // takes a struct
        "v40@0:8@16@24@32",  // three objects
        "v24@0:8^{__CFString=}16",  // a C pointer
    ])
    func unhookableSignaturesAreRefused(encoding: String) throws {
        let signature = try #require(ObjCMethodSignature(typeEncoding: encoding))
        #expect(signature.hookableObjectArgumentCount == nil)
    }

    @Test func typesAreReadWithoutOffsetsAndQualifiers() throws {
        let signature = try #require(
            ObjCMethodSignature(typeEncoding: "v48@0:8{CGRect={CGPoint=dd}{CGSize=dd}}16r^v48[4i]56"))
        #expect(signature.returnType == "v")
        #expect(signature.argumentTypes == ["@", ":", "{CGRect={CGPoint=dd}{CGSize=dd}}", "^v", "[4i]"])
    }

    @Test(arguments: ["", "v", "v16", "v16@0", "v16:0@8", "v16@0:8{CGRect", "v16@0:8@\"NSStr", "}"])
    func malformedEncodingsAreRefused(encoding: String) {
        #expect(ObjCMethodSignature(typeEncoding: encoding) == nil)
    }

    @Test func randomEncodingsNeverCrash() {
        var generator = SeededRandom(seed: 0xF00D)
        let alphabet = Array("v@:?\"{}()[]^=bqQiIBcdf0123456789rnNoORVNSString".utf8)
        for _ in 0..<5_000 {
            let length = Int(generator.next() % 24)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let signature = ObjCMethodSignature(typeEncoding: String(decoding: bytes, as: UTF8.self))
            if let signature {
                #expect(signature.argumentTypes.count >= 2)
                if let count = signature.hookableObjectArgumentCount { #expect(count <= 2) }
            }
        }
    }
}
