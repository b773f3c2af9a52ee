import { encryptKeystoreJson, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decryptKeystore, encryptKeystore, KeystoreError } from '@wharf/wallet';

const privateKey = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('keystore v3', () => {
  it('encrypts in the v3 shape and decrypts its own file', async () => {
    const ks = await encryptKeystore(privateKey, 'correct horse', { scrypt: { n: 4096 } });
    expect(ks.version).toBe(3);
    expect(ks.address).toBe(address.slice(2).toLowerCase());
    expect(ks.crypto.cipher).toBe('aes-128-ctr');
    expect(ks.crypto.kdf).toBe('scrypt');
    expect(ks.crypto.kdfparams).toMatchObject({ dklen: 32, n: 4096, r: 8, p: 1 });
    expect(ks.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const out = await decryptKeystore(JSON.stringify(ks), 'correct horse');
    expect(out).toEqual({ privateKey, address });
  });

  it('rejects a wrong password', async () => {
    const ks = await encryptKeystore(privateKey, 'a', { scrypt: { n: 1024 } });
    await expect(decryptKeystore(ks, 'b')).rejects.toThrow(KeystoreError);
    await expect(decryptKeystore(ks, 'b')).rejects.toThrow('invalid password');
  });

  it('ethers decrypts a keystore the wallet wrote', async () => {
    const ks = await encryptKeystore(privateKey, 'pw', { scrypt: { n: 4096 } });
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(ks), 'pw');
    expect(wallet.address).toBe(address);
    expect(wallet.privateKey).toBe(privateKey);
  });

  it('the wallet decrypts a keystore ethers wrote', async () => {
    const json = await encryptKeystoreJson({ address, privateKey }, 'pw2', { scrypt: { N: 4096 } });
    expect(JSON.parse(json).Crypto ?? JSON.parse(json).crypto).toBeTruthy();
    expect(await decryptKeystore(json, 'pw2')).toEqual({ privateKey, address });
  });

  it("the wallet decrypts ethers' Wallet.encrypt output (default scrypt cost)", async () => {
    const json = await new Wallet(privateKey).encrypt('default cost');
    expect(await decryptKeystore(json, 'default cost')).toEqual({ privateKey, address });
  });

  it('decrypts the pbkdf2 test vector of the Web3 Secret Storage definition', async () => {
    const vector = {
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
        ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
        kdf: 'pbkdf2',
        kdfparams: {
          c: 262144,
          dklen: 32,
          prf: 'hmac-sha256',
          salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
        },
        mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
      },
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      version: 3,
    };
    const out = await decryptKeystore(JSON.stringify(vector), 'testpassword');
    expect(out.privateKey).toBe('0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d');
  });
});
