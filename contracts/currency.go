package contracts

// exponents maps every active ISO 4217 currency code to its number of minor
// units (digits after the decimal point). Fund codes, precious metals and
// testing codes are left out on purpose: no registrar prices in them, so an
// event using one is more likely a mistake than a price.
var exponents = map[string]int{
	"AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2,
	"AZN": 2, "BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BHD": 3, "BIF": 0, "BMD": 2,
	"BND": 2, "BOB": 2, "BRL": 2, "BSD": 2, "BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2,
	"CAD": 2, "CDF": 2, "CHF": 2, "CLP": 0, "CNY": 2, "COP": 2, "CRC": 2, "CUP": 2,
	"CVE": 2, "CZK": 2, "DJF": 0, "DKK": 2, "DOP": 2, "DZD": 2, "EGP": 2, "ERN": 2,
	"ETB": 2, "EUR": 2, "FJD": 2, "FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2,
	"GMD": 2, "GNF": 0, "GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2,
	"IDR": 2, "ILS": 2, "INR": 2, "IQD": 3, "IRR": 2, "ISK": 0, "JMD": 2, "JOD": 3,
	"JPY": 0, "KES": 2, "KGS": 2, "KHR": 2, "KMF": 0, "KPW": 2, "KRW": 0, "KWD": 3,
	"KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2, "LSL": 2, "LYD": 3,
	"MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2, "MOP": 2, "MRU": 2,
	"MUR": 2, "MVR": 2, "MWK": 2, "MXN": 2, "MYR": 2, "MZN": 2, "NAD": 2, "NGN": 2,
	"NIO": 2, "NOK": 2, "NPR": 2, "NZD": 2, "OMR": 3, "PAB": 2, "PEN": 2, "PGK": 2,
	"PHP": 2, "PKR": 2, "PLN": 2, "PYG": 0, "QAR": 2, "RON": 2, "RSD": 2, "RUB": 2,
	"RWF": 0, "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2, "SHP": 2,
	"SLE": 2, "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2, "SYP": 2, "SZL": 2,
	"THB": 2, "TJS": 2, "TMT": 2, "TND": 3, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2,
	"TZS": 2, "UAH": 2, "UGX": 0, "USD": 2, "UYU": 2, "UZS": 2, "VED": 2, "VES": 2,
	"VND": 0, "VUV": 0, "WST": 2, "XAF": 0, "XCD": 2, "XCG": 2, "XOF": 0, "XPF": 0,
	"YER": 2, "ZAR": 2, "ZMW": 2, "ZWG": 2,
}

// exponentTable is exponents indexed by a code's three letters, A–Z each,
// holding the exponent plus one (0: not a currency): a replay looks up the
// currency of every price it reads, and a map lookup hashes the string.
var exponentTable = func() *[26 * 26 * 26]int8 {
	var t [26 * 26 * 26]int8
	for code, exp := range exponents {
		i, _ := currencyIndex(code)
		t[i] = int8(exp + 1)
	}
	return &t
}()

// currencyIndex is the place of a three-letter upper-case code in
// exponentTable.
func currencyIndex(code string) (int, bool) {
	if len(code) != 3 {
		return 0, false
	}
	a, b, c := code[0]-'A', code[1]-'A', code[2]-'A'
	if a >= 26 || b >= 26 || c >= 26 {
		return 0, false
	}
	return (int(a)*26+int(b))*26 + int(c), true
}

// CurrencyExponent returns the number of minor units of an ISO 4217 currency
// code, and false for a code that is not an active currency.
func CurrencyExponent(code string) (int, bool) {
	i, ok := currencyIndex(code)
	if !ok || exponentTable[i] == 0 {
		return 0, false
	}
	return int(exponentTable[i]) - 1, true
}

// AppendAmount appends the decimal form of minor units in a currency with the
// given exponent: 968 with exponent 2 is "9.68", 1500 with exponent 0 is
// "1500". It is how money leaves the program; inside it, money is an integer.
func AppendAmount(dst []byte, minor int64, exp int) []byte {
	if minor < 0 {
		dst = append(dst, '-')
		minor = -minor
	}
	if exp == 0 {
		return appendUint(dst, uint64(minor))
	}
	var pow uint64 = 1
	for range exp {
		pow *= 10
	}
	u := uint64(minor)
	dst = appendUint(dst, u/pow)
	dst = append(dst, '.')
	frac := u % pow
	for p := pow / 10; p > 0; p /= 10 {
		dst = append(dst, byte('0'+frac/p%10))
	}
	return dst
}

func appendUint(dst []byte, u uint64) []byte {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}
